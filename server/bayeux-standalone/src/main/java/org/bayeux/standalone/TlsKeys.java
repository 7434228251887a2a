package org.bayeux.standalone;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The server's TLS key and certificate chain, from a key store file (PKCS12 or JKS) or from PEM files, as an
 * in-memory {@link KeyStore} for Jetty's {@code SslContextFactory} (which reads no PEM itself). Every problem is an
 * {@link IllegalArgumentException} naming the option and the file, found when the server starts.
 */
final class TlsKeys {
    private static final Pattern PEM_BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");
    private static final String ALIAS = "server";

    /** The key store, holding one private key entry with its chain. */
    final KeyStore keyStore;
    /** The password of the store and of its key. */
    final char[] password;

    private TlsKeys(KeyStore keyStore, char[] password) {
        this.keyStore = keyStore;
        this.password = password;
    }

    /**
     * @param passwordFile a file holding the password on its first line
     * @return the password
     */
    static char[] readPassword(Path passwordFile) {
        List<String> lines;
        try {
            lines = Files.readAllLines(requireFile(passwordFile, "--tls-password-file"), StandardCharsets.UTF_8);
        } catch (IOException unreadable) {
            throw new IllegalArgumentException("--tls-password-file " + passwordFile + ": cannot be read ("
                    + unreadable.getMessage() + ")", unreadable);
        }
        if (lines.isEmpty() || lines.get(0).isEmpty()) {
            throw new IllegalArgumentException("--tls-password-file " + passwordFile + ": the first line is empty");
        }
        return lines.get(0).toCharArray();
    }

    /**
     * @param file a PKCS12 or JKS key store (the type is detected)
     * @param password its password, also that of its key
     * @return the keys
     */
    static TlsKeys fromKeyStore(Path file, char[] password) {
        KeyStore store;
        try {
            store = KeyStore.getInstance(requireFile(file, "--tls-keystore").toFile(), password);
        } catch (IOException | GeneralSecurityException | IllegalArgumentException unreadable) {
            throw new IllegalArgumentException("--tls-keystore " + file + ": cannot be opened with the password of "
                    + "--tls-password-file (wrong password, or not a PKCS12 or JKS key store)", unreadable);
        }
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (store.isKeyEntry(alias)) {
                    store.getKey(alias, password);
                    return new TlsKeys(store, password);
                }
            }
        } catch (GeneralSecurityException unrecoverable) {
            throw new IllegalArgumentException("--tls-keystore " + file + ": its private key cannot be read with the "
                    + "password of --tls-password-file (the key must have the store's password)", unrecoverable);
        }
        throw new IllegalArgumentException("--tls-keystore " + file + ": holds no private key");
    }

    /**
     * @param certificateFile PEM certificates: the server's first, then the chain
     * @param keyFile a PEM PKCS#8 private key ({@code BEGIN PRIVATE KEY}), unencrypted
     * @return the keys
     */
    static TlsKeys fromPem(Path certificateFile, Path keyFile) {
        List<X509Certificate> chain = readCertificates(certificateFile);
        PrivateKey key = readPrivateKey(keyFile);
        if (!matches(key, chain.get(0))) {
            throw new IllegalArgumentException("--tls-key " + keyFile + ": not the key of the first certificate in "
                    + "--tls-cert " + certificateFile);
        }
        char[] password = randomPassword();
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(ALIAS, key, password, chain.toArray(new Certificate[0]));
            return new TlsKeys(store, password);
        } catch (IOException | GeneralSecurityException failure) {
            throw new IllegalArgumentException("--tls-cert " + certificateFile + " --tls-key " + keyFile
                    + ": cannot be used (" + failure.getMessage() + ")", failure);
        }
    }

    private static List<X509Certificate> readCertificates(Path file) {
        List<X509Certificate> chain = new ArrayList<>();
        try (InputStream in = Files.newInputStream(requireFile(file, "--tls-cert"))) {
            for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                chain.add((X509Certificate) certificate);
            }
        } catch (IOException | GeneralSecurityException unreadable) {
            throw new IllegalArgumentException("--tls-cert " + file + ": not PEM X.509 certificates ("
                    + unreadable.getMessage() + ")", unreadable);
        }
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("--tls-cert " + file + ": holds no certificate");
        }
        return chain;
    }

    private static PrivateKey readPrivateKey(Path file) {
        String text;
        try {
            text = Files.readString(requireFile(file, "--tls-key"), StandardCharsets.US_ASCII);
        } catch (IOException unreadable) {
            throw new IllegalArgumentException("--tls-key " + file + ": cannot be read (" + unreadable.getMessage()
                    + ")", unreadable);
        }
        Matcher block = PEM_BLOCK.matcher(text);
        while (block.find()) {
            String type = block.group(1);
            if ("PRIVATE KEY".equals(type)) {
                byte[] der = Base64.getMimeDecoder().decode(block.group(2));
                return decodePkcs8(file, der);
            }
            if (type.endsWith("PRIVATE KEY")) {
                throw new IllegalArgumentException("--tls-key " + file + ": a '" + type + "' block; give an "
                        + "unencrypted PKCS#8 key ('BEGIN PRIVATE KEY'), e.g. from: openssl pkcs8 -topk8 -nocrypt "
                        + "-in KEY -out key.pem");
            }
        }
        throw new IllegalArgumentException("--tls-key " + file + ": holds no PEM 'BEGIN PRIVATE KEY' block");
    }

    private static PrivateKey decodePkcs8(Path file, byte[] der) {
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException notThisAlgorithm) {
                // try the next
            }
        }
        throw new IllegalArgumentException("--tls-key " + file + ": not an RSA, EC or EdDSA PKCS#8 private key");
    }

    /** Signs and verifies a few bytes: the only check that works for every key algorithm. */
    private static boolean matches(PrivateKey key, X509Certificate certificate) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            default -> key.getAlgorithm();
        };
        if ("RSASSA-PSS".equals(algorithm)) {
            return true; // its parameters vary; a mismatch shows at the first TLS handshake
        }
        try {
            byte[] probe = "bayeux".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException mismatch) {
            return false;
        }
    }

    private static char[] randomPassword() {
        SecureRandom random = new SecureRandom();
        char[] password = new char[24];
        for (int i = 0; i < password.length; i++) {
            password[i] = (char) ('a' + random.nextInt(26));
        }
        return password;
    }

    private static Path requireFile(Path file, String option) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(option + " " + file + ": no such readable file");
        }
        return file;
    }
}
