package org.bayeux.standalone;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.stream.Stream;

import org.bayeux.api.server.BayeuxServer;
import org.bayeux.server.app.ApplicationContext;
import org.bayeux.server.app.BayeuxApplication;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The applications the standalone server hosts ({@link BayeuxApplication}): those listed in the
 * {@code META-INF/services} files of the jars and folders of {@code --classpath}, loaded with a
 * {@link URLClassLoader} whose parent is the server's own class loader (so that they share the server's API classes).
 *
 * <p>The server's own class path is not searched for applications: a jar dropped into the distribution's
 * {@code lib/} is not run. Failures name the application's class and the jar it came from.</p>
 */
final class Applications implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Applications.class);
    static final String SERVICE_FILE = "META-INF/services/" + BayeuxApplication.class.getName();

    private final URLClassLoader loader;
    private final List<BayeuxApplication> started = new ArrayList<>();

    private Applications(URLClassLoader loader) {
        this.loader = loader;
    }

    /**
     * Expands {@code --classpath} entries: a jar is itself; a folder is its {@code *.jar} files (sorted by name,
     * as the distribution's {@code apps/} holds them) and the folder itself (for compiled classes).
     *
     * @param entries the entries, in the order given
     * @return the jars and folders, in that order
     * @throws IllegalArgumentException naming an entry that is neither a folder nor a readable jar
     */
    static List<Path> expand(List<Path> entries) {
        List<Path> all = new ArrayList<>();
        for (Path entry : entries) {
            if (Files.isDirectory(entry)) {
                all.add(entry);
                try (Stream<Path> files = Files.list(entry)) {
                    files.filter(file -> file.getFileName().toString().endsWith(".jar") && Files.isRegularFile(file))
                            .sorted().forEach(all::add);
                } catch (IOException unreadable) {
                    throw new IllegalArgumentException("--classpath " + entry + ": cannot list the folder ("
                            + unreadable.getMessage() + ")", unreadable);
                }
            } else if (Files.isRegularFile(entry) && entry.getFileName().toString().endsWith(".jar")) {
                if (!Files.isReadable(entry)) {
                    throw new IllegalArgumentException("--classpath " + entry + ": not readable");
                }
                all.add(entry);
            } else {
                throw new IllegalArgumentException("--classpath " + entry + ": neither a folder nor a .jar file");
            }
        }
        return all;
    }

    /**
     * Finds, creates and starts the applications.
     *
     * @param classPath the expanded {@code --classpath} ({@link #expand})
     * @param server the server they register on
     * @param components what the host runs beside the server, offered by {@link ApplicationContext#component}
     * @return the started applications, to be {@link #close closed} when the server stops
     * @throws ApplicationException naming the application and its jar, when one cannot be loaded or fails to start
     *         (those started before it are stopped)
     */
    static Applications start(List<Path> classPath, BayeuxServer server, List<Object> components) {
        URLClassLoader loader = new URLClassLoader("bayeux-apps", urls(classPath),
                StandaloneServer.class.getClassLoader());
        Applications applications = new Applications(loader);
        if (classPath.isEmpty()) {
            return applications;
        }
        LOG.info("Looking for applications in {}", classPath);
        try {
            Map<String, String> wanted = listedIn(loader);
            List<ServiceLoader.Provider<BayeuxApplication>> providers = providers(loader, wanted);
            for (ServiceLoader.Provider<BayeuxApplication> provider : providers) {
                String name = provider.type().getName();
                String source = wanted.get(name);
                BayeuxApplication application;
                try {
                    application = provider.get();
                } catch (ServiceConfigurationError failed) {
                    throw new ApplicationException("application " + name + " from " + source
                            + " could not be created: " + reason(failed), failed);
                }
                ApplicationContext context = new Context(server, components, loader);
                try {
                    application.start(context);
                } catch (Exception | LinkageError failed) {
                    throw new ApplicationException("application " + name + " from " + source
                            + " failed to start: " + reason(failed), failed);
                }
                applications.started.add(application);
                LOG.info("Started application {} from {}", application.name(), source);
            }
            return applications;
        } catch (RuntimeException failed) {
            applications.close();
            throw failed;
        }
    }

    /** @return the started applications, in the order they started */
    synchronized List<BayeuxApplication> started() {
        return List.copyOf(started);
    }

    /**
     * Every application's class listed in the service files of {@code loader}'s own jars and folders (never its
     * parent's), with the jar or folder that lists it.
     */
    private static Map<String, String> listedIn(URLClassLoader loader) {
        Map<String, String> listed = new LinkedHashMap<>();
        try {
            Enumeration<URL> files = loader.findResources(SERVICE_FILE);
            while (files.hasMoreElements()) {
                URL file = files.nextElement();
                String source = sourceOf(file);
                for (String name : classNames(file, source)) {
                    listed.putIfAbsent(name, source);
                }
            }
        } catch (IOException unreadable) {
            throw new ApplicationException("--classpath: cannot read the " + SERVICE_FILE + " files ("
                    + unreadable.getMessage() + ")", unreadable);
        }
        return listed;
    }

    /**
     * The providers {@link ServiceLoader} finds whose class is wanted, in the order it finds them; a provider that
     * cannot be loaded is reported with the jar that names it.
     */
    private static List<ServiceLoader.Provider<BayeuxApplication>> providers(URLClassLoader loader,
            Map<String, String> wanted) {
        List<ServiceLoader.Provider<BayeuxApplication>> found = new ArrayList<>();
        Set<String> missing = new java.util.LinkedHashSet<>(wanted.keySet());
        var iterator = ServiceLoader.load(BayeuxApplication.class, loader).stream().iterator();
        while (true) {
            ServiceLoader.Provider<BayeuxApplication> provider;
            try {
                if (!iterator.hasNext()) {
                    break;
                }
                provider = iterator.next();
            } catch (ServiceConfigurationError broken) {
                String message = String.valueOf(broken.getMessage());
                // The longest name the message holds: a.B must not be blamed for a.BC.
                String culprit = wanted.keySet().stream().filter(message::contains)
                        .max(java.util.Comparator.comparingInt(String::length)).orElse(null);
                if (culprit == null) {
                    throw broken; // a broken provider on the server's own class path: no application's fault
                }
                throw new ApplicationException("application " + culprit + " from " + wanted.get(culprit)
                        + " could not be loaded: " + reason(broken), broken);
            }
            if (wanted.containsKey(provider.type().getName())) {
                missing.remove(provider.type().getName());
                found.add(provider);
            }
        }
        if (!missing.isEmpty()) {
            String name = missing.iterator().next();
            throw new ApplicationException("application " + name + " from " + wanted.get(name)
                    + " could not be loaded: not found by ServiceLoader");
        }
        return found;
    }

    private static List<String> classNames(URL file, String source) throws IOException {
        List<String> names = new ArrayList<>();
        var connection = file.openConnection();
        if (connection instanceof JarURLConnection) {
            connection.setUseCaches(false); // else the jar stays open after the loader is closed
        }
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(connection.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                int comment = line.indexOf('#');
                String name = (comment >= 0 ? line.substring(0, comment) : line).trim();
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
        }
        if (names.isEmpty()) {
            LOG.warn("{} in {} names no application", SERVICE_FILE, source);
        }
        return names;
    }

    /** The jar or folder a service file is in, as a path. */
    private static String sourceOf(URL file) {
        String text = file.toString();
        if (text.startsWith("jar:")) {
            int bang = text.indexOf("!/");
            text = text.substring(4, bang < 0 ? text.length() : bang);
        } else if (text.endsWith(SERVICE_FILE)) {
            text = text.substring(0, text.length() - SERVICE_FILE.length());
        }
        try {
            return Path.of(new URL(text).toURI()).toString();
        } catch (Exception notAFile) {
            return text;
        }
    }

    private static URL[] urls(List<Path> classPath) {
        URL[] urls = new URL[classPath.size()];
        for (int i = 0; i < urls.length; i++) {
            try {
                urls[i] = classPath.get(i).toAbsolutePath().toUri().toURL();
            } catch (MalformedURLException impossible) {
                throw new UncheckedIOException(impossible);
            }
        }
        return urls;
    }

    private static String reason(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == failure ? String.valueOf(failure) : failure + " (caused by " + root + ")";
    }

    /** Stops the started applications in the reverse order (each failure logged), then closes their loader. */
    @Override
    public synchronized void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            BayeuxApplication application = started.get(i);
            try {
                application.stop();
            } catch (Exception | LinkageError failed) {
                LOG.warn("Application {} failed to stop", application.name(), failed);
            }
        }
        started.clear();
        try {
            loader.close();
        } catch (IOException ignored) {
            LOG.debug("Closing the applications' class loader", ignored);
        }
    }

    /** An application that cannot be loaded or started: the message names its class and jar. */
    static final class ApplicationException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        ApplicationException(String message) {
            super(message);
        }

        ApplicationException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What an application is given. */
    private static final class Context implements ApplicationContext {
        private final BayeuxServer server;
        private final List<Object> components;
        private final ClassLoader loader;

        Context(BayeuxServer server, List<Object> components, ClassLoader loader) {
            this.server = server;
            this.components = components;
            this.loader = loader;
        }

        @Override
        public BayeuxServer server() {
            return server;
        }

        @Override
        public <T> Optional<T> component(Class<T> type) {
            return components.stream().filter(type::isInstance).map(type::cast).findFirst();
        }

        @Override
        public ClassLoader classLoader() {
            return loader;
        }
    }
}
