package io.jtrace.api;

import io.jtrace.api.spi.TrackEventBackend;

/**
 * The application's tracing API: slices, instants and counters on the calling thread's track. Without
 * a jtrace agent, or while no session enables the category, every call is a single branch.
 */
public final class TrackEvent {
    /** The agent's implementation, or a no-op. Volatile: installed once, read on every enabled event. */
    static volatile TrackEventBackend backend = NoopBackend.INSTANCE;
    static volatile CategoryListener categoryListener;

    private static final Slice NOOP_SLICE = () -> { };

    private TrackEvent() {}

    /** Begins a slice named {@code name} on the calling thread's track. */
    public static void begin(Category category, String name) {
        if (category.enabled) {
            backend.begin(category, name, System.nanoTime());
        }
    }

    /** Ends the calling thread's innermost open slice (of {@code category}). */
    public static void end(Category category) {
        if (category.enabled) {
            backend.end(category, System.nanoTime());
        }
    }

    /** Begins a slice and returns a handle whose {@code close()} ends it: use with try-with-resources. */
    public static Slice slice(Category category, String name) {
        if (category.enabled) {
            backend.begin(category, name, System.nanoTime());
            return backend.sliceCloser(category);
        }
        return NOOP_SLICE;
    }

    /** A zero-duration event on the calling thread's track. */
    public static void instant(Category category, String name) {
        if (category.enabled) {
            backend.instant(category, name, System.nanoTime());
        }
    }

    /** Sets the process-wide counter track {@code name} to {@code value}. */
    public static void counter(Category category, String name, long value) {
        if (category.enabled) {
            backend.counter(category, name, value, System.nanoTime());
        }
    }

    /** Sets the process-wide counter track {@code name} to {@code value}. */
    public static void counter(Category category, String name, double value) {
        if (category.enabled) {
            backend.counter(category, name, value, System.nanoTime());
        }
    }

    static final class NoopBackend implements TrackEventBackend {
        static final NoopBackend INSTANCE = new NoopBackend();

        @Override
        public void begin(Category category, String name, long timestamp) {}

        @Override
        public void end(Category category, long timestamp) {}

        @Override
        public Slice sliceCloser(Category category) {
            return NOOP_SLICE;
        }

        @Override
        public void instant(Category category, String name, long timestamp) {}

        @Override
        public void counter(Category category, String name, long value, long timestamp) {}

        @Override
        public void counter(Category category, String name, double value, long timestamp) {}
    }
}
