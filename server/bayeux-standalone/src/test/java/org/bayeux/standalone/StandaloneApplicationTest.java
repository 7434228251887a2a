package org.bayeux.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.bayeux.api.Message;
import org.bayeux.client.BayeuxClient;
import org.bayeux.client.BayeuxClientConfig;
import org.bayeux.client.transport.ClientTransport;
import org.bayeux.standalone.testapp.AppJar;
import org.bayeux.standalone.testapp.EchoApplication;
import org.bayeux.standalone.testapp.FailingApplication;
import org.bayeux.standalone.testapp.RecordingApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Application code loaded with {@code --classpath} (org.bayeux.server.app.BayeuxApplication). */
class StandaloneApplicationTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path folder;

    @Test
    void anApplicationJarAnswersOnItsServiceChannel() throws Exception {
        Path jar = AppJar.echo(folder.resolve("echo.jar"));
        try (StandaloneServer server = start("--classpath", jar.toString())) {
            assertThat(server.getApplications()).singleElement().isInstanceOf(EchoApplication.class);
            for (String transport : List.of(ClientTransport.WEBSOCKET, ClientTransport.LONG_POLLING)) {
                assertThat(echo(server, transport, "ping")).isEqualTo(Map.of("echo", "ping",
                        "greeting", "hello from the jar"));
            }
        }
    }

    @Test
    void applicationsStopWhenTheServerStopsWhileItStillRuns() throws Exception {
        RecordingApplication.EVENTS.clear();
        Path jar = new AppJar().withClass(RecordingApplication.class)
                .listing(List.of(RecordingApplication.class.getName())).writeTo(folder.resolve("recording.jar"));
        try (StandaloneServer server = start("--classpath", jar.toString())) {
            server.getEngine().newLocalSession("watcher").handshake();
            assertThat(RecordingApplication.EVENTS).containsExactly("start");
        }
        assertThat(RecordingApplication.EVENTS).containsExactly("start", "stop: 1 sessions");
    }

    /** A class on no class path of the test: compiled here, found only in the jar, defined by the apps' loader. */
    @Test
    void aClassOnlyInTheJarIsDefinedByTheApplicationsLoader() throws Exception {
        Path sources = Files.createDirectories(folder.resolve("src/com/example"));
        Files.writeString(sources.resolve("Hello.java"), String.join("\n",
                "package com.example;",
                "public final class Hello implements org.bayeux.server.app.BayeuxApplication {",
                "    public void start(org.bayeux.server.app.ApplicationContext context) {",
                "        new org.bayeux.server.BayeuxService(context.server(), \"hello\") {",
                "            { addService(\"/service/echo\", (remote, message) -> java.util.Map.of(\"echo\",",
                "                    message.getData(), \"greeting\", \"hello from \" + getClass().getClassLoader()",
                "                    .getName())); }",
                "        };",
                "    }",
                "}"));
        Path classes = Files.createDirectories(folder.resolve("classes"));
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        int status = javac.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                sources.resolve("Hello.java").toString());
        assertThat(status).isZero();
        AppJar jar = new AppJar().listing(List.of("com.example.Hello"));
        try (var files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                jar.withBytes(classes.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
            }
        }
        Path written = jar.writeTo(folder.resolve("hello.jar"));
        assertThatThrownBy(() -> Class.forName("com.example.Hello")).isInstanceOf(ClassNotFoundException.class);
        try (StandaloneServer server = start("--classpath", written.toString())) {
            assertThat(server.getApplications()).singleElement()
                    .satisfies(app -> assertThat(app.getClass().getClassLoader().getName()).isEqualTo("bayeux-apps"));
            assertThat(echo(server, ClientTransport.WEBSOCKET, "hi")).isEqualTo(Map.of("echo", "hi",
                    "greeting", "hello from bayeux-apps"));
        }
    }

    @Test
    void aFolderLoadsEveryJarInIt() throws Exception {
        Path apps = Files.createDirectory(folder.resolve("apps"));
        AppJar.echo(apps.resolve("echo.jar"));
        new AppJar().withClass(RecordingApplication.class).listing(List.of(RecordingApplication.class.getName()))
                .writeTo(apps.resolve("recording.jar"));
        Files.writeString(apps.resolve("README.txt"), "not a jar: ignored");
        try (StandaloneServer server = start("--classpath", apps.toString())) {
            assertThat(server.getApplications()).hasSize(2).hasAtLeastOneElementOfType(EchoApplication.class)
                    .hasAtLeastOneElementOfType(RecordingApplication.class);
            assertThat(echo(server, ClientTransport.LONG_POLLING, 7)).containsEntry("echo", 7L);
        }
    }

    @Test
    void withoutClasspathNoApplicationRunsNotEvenOneListedOnTheServersOwnClassPath() throws Exception {
        // src/test/resources lists RecordingApplication in the server's own class path's service file.
        assertThat(Thread.currentThread().getContextClassLoader().getResource(Applications.SERVICE_FILE)).isNotNull();
        try (StandaloneServer server = start()) {
            assertThat(server.getApplications()).isEmpty();
        }
    }

    @Test
    void anApplicationThatFailsToStartStopsTheServerNamingItsClassAndJar() throws Exception {
        Path jar = new AppJar().withClass(FailingApplication.class)
                .listing(List.of(FailingApplication.class.getName())).writeTo(folder.resolve("failing.jar"));
        assertThatThrownBy(() -> start("--classpath", jar.toString()))
                .isInstanceOf(Applications.ApplicationException.class)
                .hasMessageContaining(FailingApplication.class.getName())
                .hasMessageContaining(jar.toString())
                .hasMessageContaining("failed to start")
                .hasMessageContaining("the test application refuses to start");
    }

    @Test
    void aMissingClassIsNamedWithItsJar() throws Exception {
        Path jar = new AppJar().listing(List.of("org.example.NoSuchApplication")).writeTo(folder.resolve("bad.jar"));
        assertThatThrownBy(() -> start("--classpath", jar.toString()))
                .isInstanceOf(Applications.ApplicationException.class)
                .hasMessageContaining("org.example.NoSuchApplication")
                .hasMessageContaining(jar.toString())
                .hasMessageContaining("could not be loaded");
    }

    @Test
    void aClassThatIsNoApplicationIsNamedWithItsJar() throws Exception {
        Path jar = new AppJar().withClass(AppJar.class).listing(List.of(AppJar.class.getName()))
                .writeTo(folder.resolve("wrong.jar"));
        assertThatThrownBy(() -> start("--classpath", jar.toString()))
                .isInstanceOf(Applications.ApplicationException.class)
                .hasMessageContaining(AppJar.class.getName())
                .hasMessageContaining(jar.toString());
    }

    @Test
    void badClasspathEntriesAreNamed() throws Exception {
        Path text = Files.writeString(folder.resolve("notes.txt"), "hello");
        assertThatThrownBy(() -> StandaloneOptions.parse("--classpath", text.toString()))
                .hasMessageContaining("--classpath " + text).hasMessageContaining("neither a folder nor a .jar");
        assertThatThrownBy(() -> StandaloneOptions.parse("--classpath", folder.resolve("none.jar").toString()))
                .hasMessageContaining("none.jar");
        Path a = AppJar.echo(folder.resolve("a.jar"));
        Path b = Files.createDirectory(folder.resolve("b"));
        assertThat(StandaloneOptions.parse("--classpath", a + java.io.File.pathSeparator + b).classPath)
                .containsExactly(a, b);
        assertThat(StandaloneOptions.parse("--classpath", a.toString(), "--classpath", b.toString()).classPath)
                .containsExactly(a, b);
    }

    private static StandaloneServer start(String... args) throws Exception {
        return new StandaloneServer(StandaloneOptions.parse(args).port(0).host("127.0.0.1"));
    }

    private static Map<String, Object> echo(StandaloneServer server, String transport, Object data) throws Exception {
        BayeuxClient client = new BayeuxClient(BayeuxClientConfig.builder(server.getBaseUrl() + "/bayeux")
                .transports(transport).build());
        try {
            assertThat(client.handshake(WAIT)).isEqualTo(BayeuxClient.State.CONNECTED);
            Message answer = client.remoteCallAsync("/service/echo", data, WAIT)
                    .get(WAIT.toMillis() * 2, TimeUnit.MILLISECONDS);
            assertThat(answer.isSuccessful()).as("answer %s", answer).isTrue();
            return answer.getDataAsMap();
        } finally {
            client.close();
        }
    }
}
