package io.jtrace.it.workload;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * A container with a web application that brings its own jtrace-api: the application's class loader
 * loads its own jars first (the API jar given as {@code -Djtrace.apiJar}, then these classes), as a
 * servlet container's does. Prints "READY own copy: true" once the application's copy of the API is
 * initialized, then lets it trace "tick" slices for the given number of seconds.
 */
public final class OwnApiCopyWorkload {
    private OwnApiCopyWorkload() {}

    public static void main(String[] args) throws Exception {
        URL api = Path.of(System.getProperty("jtrace.apiJar")).toUri().toURL();
        URL classes = OwnApiCopyWorkload.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader webApp = new URLClassLoader("web-app", new URL[] {api, classes}, ClassLoader.getPlatformClassLoader())) {
            LongConsumer app = (LongConsumer) webApp.loadClass("io.jtrace.it.workload.OwnApiCopyApplication")
                    .getConstructor().newInstance();
            Class<?> category = webApp.loadClass("io.jtrace.api.Category");
            System.out.println("READY own copy: " + (category.getClassLoader() == webApp));
            System.out.flush();
            app.accept(Long.parseLong(args[0]));
        }
    }
}
