package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/** The web application of {@link OwnApiCopyWorkload}: its API is initialized with this class. */
public final class OwnApiCopyApplication implements LongConsumer {
    private static final Category WEB = Category.of("web-app");

    @Override
    public void accept(long seconds) {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            TrackEvent.event(WEB).arg("loader", OwnApiCopyApplication.class.getClassLoader().getName()).begin("tick");
            LockSupport.parkNanos(2_000_000);
            TrackEvent.end(WEB);
        }
    }
}
