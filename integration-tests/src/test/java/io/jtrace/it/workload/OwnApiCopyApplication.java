package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.util.concurrent.locks.LockSupport;

/**
 * The web application of {@link OwnApiCopyWorkload}: prints "READY own copy: true" once its copy of
 * the API is initialized (and is not the system class path's), then traces "tick" slices for the
 * given number of seconds.
 */
public final class OwnApiCopyApplication {
    private static final Category WEB = Category.of("web-app");

    private OwnApiCopyApplication() {}

    public static void main(String[] args) {
        System.out.println("READY own copy: " + (Category.class.getClassLoader() != ClassLoader.getSystemClassLoader()));
        System.out.flush();
        long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
        while (System.nanoTime() < end) {
            TrackEvent.event(WEB).arg("loader", OwnApiCopyApplication.class.getClassLoader().getName()).begin("tick");
            LockSupport.parkNanos(2_000_000);
            TrackEvent.end(WEB);
        }
    }
}
