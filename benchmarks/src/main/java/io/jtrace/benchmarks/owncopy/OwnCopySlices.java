package io.jtrace.benchmarks.owncopy;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;

/**
 * The benchmark's slices as an application with its own copy of the API writes them: loaded by a
 * child-first class loader (see {@code OwnApiCopyBenchmark}), so every {@code io.jtrace.api} name here
 * is that copy's. Reached through {@link Runnable} only.
 */
public final class OwnCopySlices {
    private static final Category BENCH = Category.of("bench");

    private OwnCopySlices() {}

    /** begin + end. */
    public static final class Plain implements Runnable {
        @Override
        public void run() {
            TrackEvent.begin(BENCH, "slice");
            TrackEvent.end(BENCH);
        }
    }

    /** A slice built with two annotations. */
    public static final class Annotated implements Runnable {
        @Override
        public void run() {
            TrackEvent.event(BENCH).arg("rows", 42).arg("table", "orders").begin("slice");
            TrackEvent.end(BENCH);
        }
    }
}
