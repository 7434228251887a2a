package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made for the run by the JDK's keytool (no private key is
 * committed, and it never expires in the repository), as a PKCS12 key store, a password file and PEM files.
 */
final class TestCertificate {
    static final String PASSWORD = "test-only-password";

    final Path keyStore;
    final Path passwordFile;
    final Path certificatePem;
    final Path keyPem;

    private TestCertificate(Path keyStore, Path passwordFile, Path certificatePem, Path keyPem) {
        this.keyStore = keyStore;
        this.passwordFile = passwordFile;
        this.certificatePem = certificatePem;
        this.keyPem = keyPem;
    }

    /**
     * @param directory where to write the files
     * @param keyAlgorithm "RSA" or "EC"
     * @return the certificate's files
     */
    static TestCertificate create(Path directory, String keyAlgorithm) throws Exception {
        Path keyStore = directory.resolve("server-" + keyAlgorithm + ".p12");
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process process = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "server", "-keyalg",
                keyAlgorithm, "-validity", "30", "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-keystore", keyStore.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD)
                .redirectErrorStream(true).start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
            assertThat(process.exitValue()).as(new String(process.getInputStream().readAllBytes())).isZero();
        } finally {
            process.destroyForcibly();
        }
        Path passwordFile = Files.writeString(directory.resolve("password-" + keyAlgorithm + ".txt"), PASSWORD + "\n");
        KeyStore store = KeyStore.getInstance(keyStore.toFile(), PASSWORD.toCharArray());
        Path certificatePem = Files.writeString(directory.resolve("cert-" + keyAlgorithm + ".pem"),
                pem("CERTIFICATE", store.getCertificate("server").getEncoded()));
        PrivateKey key = (PrivateKey) store.getKey("server", PASSWORD.toCharArray());
        Path keyPem = Files.writeString(directory.resolve("key-" + keyAlgorithm + ".pem"),
                pem("PRIVATE KEY", key.getEncoded()));
        // Secret files the server user's alone, as the server requires (SecretFiles).
        for (Path secret : new Path[] {passwordFile, keyPem}) {
            Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        }
        return new TestCertificate(keyStore, passwordFile, certificatePem, keyPem);
    }

    private static String pem(String type, byte[] der) {
        String base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n";
    }
}
