package io.jtrace.api;

import io.jtrace.api.spi.EventData;
import io.jtrace.api.spi.TrackEventBackend;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application's tracing API: slices, instants and counters on the calling thread's track. Without
 * a jtrace agent, or while no session enables the category, every call is a single branch.
 */
public final class TrackEvent {
    /** The agent's implementation, or a no-op. Volatile: installed once, read on every enabled event. */
    static volatile TrackEventBackend backend = NoopBackend.INSTANCE;
    static volatile CategoryListener categoryListener;

    static final Slice NOOP_SLICE = () -> { };
    /** Each thread's reusable event builder. */
    private static final ThreadLocal<Event> EVENTS = ThreadLocal.withInitial(() -> new Event(true));
    /** A random start, so the flow ids of two JVMs in one trace do not collide. */
    private static final AtomicLong FLOW_IDS = new AtomicLong(ThreadLocalRandom.current().nextLong());

    /**
     * Last of the static initializers, so that a backend installed from here is not overwritten by the
     * field initializers above: an agent that runs in this JVM binds this copy of the API now, before
     * its first event, whichever class loader loaded it.
     */
    static {
        AgentLookup.announce(TrackEvent.class);
    }

    private TrackEvent() {}

    /** Begins a slice named {@code name} on the calling thread's track. */
    public static void begin(Category category, String name) {
        if (category.enabled) {
            backend.begin(category, name, System.nanoTime());
        }
    }

    /**
     * Ends the innermost open slice on the calling thread's track, in the sessions that record
     * {@code category} (end it with the category it began with).
     */
    public static void end(Category category) {
        if (category.enabled) {
            backend.end(category, System.nanoTime());
        }
    }

    /** Begins a slice and returns a handle whose {@code close()} ends it: use with try-with-resources. */
    public static Slice slice(Category category, String name) {
        if (category.enabled) {
            backend.begin(category, name, System.nanoTime());
            return category.closer;
        }
        return NOOP_SLICE;
    }

    /** A zero-duration event on the calling thread's track. */
    public static void instant(Category category, String name) {
        if (category.enabled) {
            backend.instant(category, name, System.nanoTime());
        }
    }

    /**
     * An event to build with annotations, flows or an async track, then write with {@code begin},
     * {@code end}, {@code instant} or {@code slice}: see {@link Event}. Allocates nothing; while the
     * category is disabled, every call on the result does nothing.
     */
    public static Event event(Category category) {
        return category.enabled ? EVENTS.get().take(category) : Event.DISABLED;
    }

    /** A new flow id, for {@link Event#flow} and {@link Event#terminateFlow}: unique in this JVM, never 0. */
    public static long newFlowId() {
        long id;
        do {
            id = FLOW_IDS.incrementAndGet();
        } while (id == 0);
        return id;
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
        public void instant(Category category, String name, long timestamp) {}

        @Override
        public void counter(Category category, String name, long value, long timestamp) {}

        @Override
        public void counter(Category category, String name, double value, long timestamp) {}

        @Override
        public void event(int type, Category category, String name, long timestamp, EventData data) {}
    }
}
