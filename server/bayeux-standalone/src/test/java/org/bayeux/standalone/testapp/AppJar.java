package org.bayeux.standalone.testapp;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.bayeux.server.app.BayeuxApplication;

/** Writes an application jar, as a team's build would, from compiled test classes (with java.util.jar). */
public final class AppJar {
    private final Map<String, byte[]> entries = new LinkedHashMap<>();

    /**
     * @param type a class to include (its nested classes too)
     * @return this
     */
    public AppJar withClass(Class<?> type) throws IOException {
        Path classes = Path.of(type.getProtectionDomain().getCodeSource().getLocation().getPath());
        String folder = type.getPackageName().replace('.', '/');
        String simple = type.getName().substring(type.getPackageName().length() + 1);
        try (var files = Files.list(classes.resolve(folder))) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.equals(simple + ".class") || name.startsWith(simple + "$") && name.endsWith(".class")) {
                    entries.put(folder + "/" + name, Files.readAllBytes(file));
                }
            }
        }
        return this;
    }

    /**
     * @param path the entry's path in the jar
     * @param bytes its content
     * @return this
     */
    public AppJar withBytes(String path, byte[] bytes) {
        entries.put(path, bytes.clone());
        return this;
    }

    /**
     * @param path the entry's path in the jar
     * @param text its content
     * @return this
     */
    public AppJar withText(String path, String text) {
        entries.put(path, text.getBytes(StandardCharsets.UTF_8));
        return this;
    }

    /**
     * @param classNames the applications' class names, as the jar's service file lists them
     * @return this
     */
    public AppJar listing(List<String> classNames) {
        return withText("META-INF/services/" + BayeuxApplication.class.getName(),
                "# written by the test\n" + String.join("\n", classNames) + "\n");
    }

    /**
     * @param jar the file to write
     * @return the file
     */
    public Path writeTo(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
            for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                jarOut.putNextEntry(new JarEntry(entry.getKey()));
                jarOut.write(entry.getValue());
                jarOut.closeEntry();
            }
        }
        return jar;
    }

    /**
     * @param jar the file to write
     * @return the echo application's jar, with its greeting "hello from the jar"
     */
    public static Path echo(Path jar) throws IOException {
        return new AppJar().withClass(EchoApplication.class).withText(EchoApplication.GREETING, "hello from the jar")
                .listing(List.of(EchoApplication.class.getName())).writeTo(jar);
    }
}
