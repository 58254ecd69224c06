package io.jtrace.jfr.live;

import java.util.function.LongSupplier;
import java.util.function.Supplier;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Measures JFR's timebase against {@code System.nanoTime()}: JFR stamps events with its chunk's
 * wall-clock start plus the ticks elapsed since, so REALTIME − MONOTONIC as JFR applies it is fixed per
 * chunk and changes only when a new chunk starts after the wall clock was stepped (NTP slewing changes
 * both clocks alike). A marker reads {@code System.nanoTime()} just before and just after JFR reads its
 * ticks ({@code begin()}); its start time minus those reads brackets JFR's offset.
 *
 * <p>Two periodic events, both run on JFR's periodic thread: {@link ChunkStart} at the start of every
 * chunk (so a new timebase is known from the chunk's first moments) and {@link Periodic} every second.
 * Not from the stream's own thread: JFR does not record the events of the thread that dispatches a
 * stream. Disabled by default, so written only while a jtrace stream enables them; but then JFR writes
 * them into the chunks every running recording shares, so a recording the user makes at the same time
 * holds them too (one per chunk and one per second). Two event
 * classes with the same fields, not a common event superclass: JDK 17's JFR fails to instrument a
 * subclass of an abstract event with fields ({@code NoSuchFieldError: setting0} in {@code commit()}).
 */
final class ClockMarker {
    static final String CHUNK_START = "jtrace.ClockMarker.ChunkStart";
    static final String PERIODIC = "jtrace.ClockMarker.Periodic";
    /** A bracket wider than this was interrupted (preempted, a safepoint): it is read again. */
    static final long MAX_BRACKET_NANOS = 20_000;
    private static final int ATTEMPTS = 5;

    private static boolean registered;

    private ClockMarker() {}

    /** A marker event: JFR's {@code begin()} and {@code commit()}, and the two reads around begin. */
    interface Bracketed {
        void begin();

        void commit();

        void bracket(long monotonicBefore, long monotonicAfter);
    }

    @Name(CHUNK_START)
    @Label("jtrace clock marker at chunk start")
    @Enabled(false)
    @StackTrace(false)
    static final class ChunkStart extends Event implements Bracketed {
        @Label("monotonic before")
        long monotonicBefore;
        @Label("monotonic after")
        long monotonicAfter;

        @Override
        public void bracket(long before, long after) {
            monotonicBefore = before;
            monotonicAfter = after;
        }
    }

    @Name(PERIODIC)
    @Label("jtrace clock marker")
    @Enabled(false)
    @StackTrace(false)
    static final class Periodic extends Event implements Bracketed {
        @Label("monotonic before")
        long monotonicBefore;
        @Label("monotonic after")
        long monotonicAfter;

        @Override
        public void bracket(long before, long after) {
            monotonicBefore = before;
            monotonicAfter = after;
        }
    }

    static boolean isMarker(String eventType) {
        return eventType.equals(PERIODIC) || eventType.equals(CHUNK_START);
    }

    /** Registers the hooks once per JVM; they record only in a recording that enables the markers. */
    static synchronized void registerPeriodic() {
        if (!registered) {
            FlightRecorder.addPeriodicEvent(ChunkStart.class, () -> commitOne(ChunkStart::new, System::nanoTime));
            FlightRecorder.addPeriodicEvent(Periodic.class, () -> commitOne(Periodic::new, System::nanoTime));
            registered = true;
        }
    }

    /**
     * Commits one marker whose bracket is at most {@link #MAX_BRACKET_NANOS} wide, trying a few times;
     * {@code monotonic} is {@code System::nanoTime} but in tests.
     */
    static void commitOne(Supplier<? extends Bracketed> markers, LongSupplier monotonic) {
        for (int i = 0; i < ATTEMPTS; i++) {
            Bracketed m = markers.get();
            long before = monotonic.getAsLong();
            m.begin();
            long after = monotonic.getAsLong();
            if (after - before <= MAX_BRACKET_NANOS) {
                m.bracket(before, after);
                m.commit();
                return;
            }
        }
    }
}
