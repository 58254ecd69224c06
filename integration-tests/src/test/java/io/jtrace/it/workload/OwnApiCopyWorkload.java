package io.jtrace.it.workload;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A container with a web application that brings its own jtrace-api: the application's class loader
 * loads its own jars first (the API jar given as {@code -Djtrace.apiJar}, then these classes), as a
 * servlet container's does. Runs {@code main} of the class named by the first argument inside that
 * loader, with the other arguments: the workload then traces through its own copy of the API.
 */
public final class OwnApiCopyWorkload {
    private OwnApiCopyWorkload() {}

    public static void main(String[] args) throws Exception {
        URL api = Path.of(System.getProperty("jtrace.apiJar")).toUri().toURL();
        URL classes = OwnApiCopyWorkload.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader webApp = new URLClassLoader("web-app", new URL[] {api, classes}, ClassLoader.getPlatformClassLoader())) {
            Method main = webApp.loadClass(args[0]).getMethod("main", String[].class);
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        }
    }
}
