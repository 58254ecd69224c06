package io.jtrace.benchmarks;

import io.jtrace.api.Category;
import io.jtrace.api.Slice;
import io.jtrace.api.TrackEvent;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The public API's hot path: one begin + end slice with an interned name and category, on 1, 2 and 64
 * threads (64 is more than the machine has cores: threads are descheduled mid-event), and the same on
 * a disabled category; and the cost of a whole short-lived thread that traces 10 slices.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TrackEventBenchmark {
    private static final Category BENCH = Category.of("bench");
    private static final Category OFF = Category.of("off");

    /**
     * service: through the real embedded service; writer: chunks freed at once, the writer's own cost;
     * full: chunks never freed, so once the SMB has filled every event is dropped and counted.
     */
    @Param({"service", "writer", "full"})
    public String mode;

    private EmbeddedTracing tracing;

    @Setup(Level.Trial)
    public void start() throws Exception {
        tracing = EmbeddedTracing.start(mode);
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        tracing.close();
    }

    @Benchmark
    public void slice() {
        TrackEvent.begin(BENCH, "slice");
        TrackEvent.end(BENCH);
    }

    /** Advances by a few ns per event, as a clock read back to back would. */
    private long fakeClock;

    /**
     * The slice of {@link #slice} given timestamps instead of reading the clock: jtrace's own cost of a
     * slice, without the two {@code System.nanoTime()} calls the API makes (what they cost on the machine
     * is {@link PeerBenchmark}'s {@code nanoTime}).
     */
    @Benchmark
    public void sliceWithoutClock() {
        long t = fakeClock += 40;
        tracing.source.begin(BENCH, "slice", t);
        tracing.source.end(BENCH, t + 20);
    }

    /** The same slice through try-with-resources, as applications usually write it. */
    @Benchmark
    public void sliceScope() {
        try (Slice s = TrackEvent.slice(BENCH, "slice")) {
            // nothing inside: the slice's own cost
        }
    }

    @Benchmark
    @Threads(2)
    public void slice2Threads() {
        TrackEvent.begin(BENCH, "slice");
        TrackEvent.end(BENCH);
    }

    @Benchmark
    @Threads(64)
    public void slice64Threads() {
        TrackEvent.begin(BENCH, "slice");
        TrackEvent.end(BENCH);
    }

    /**
     * One thread's lifetime: start a thread that writes 10 slices, and join it. Compare with
     * {@link #threadLifetimeUntraced}: the difference is what tracing adds to a short-lived thread
     * (its first event binds it to a writer, its writer is handed back after it ends).
     */
    @Benchmark
    public void threadLifetime10Slices() throws InterruptedException {
        Thread t = new Thread(TrackEventBenchmark::tenSlices);
        t.start();
        t.join();
    }

    /** The peer of {@link #threadLifetime10Slices}: the same thread, its 10 slices on a disabled category. */
    @Benchmark
    public void threadLifetimeUntraced() throws InterruptedException {
        Thread t = new Thread(TrackEventBenchmark::tenDisabledSlices);
        t.start();
        t.join();
    }

    private static void tenSlices() {
        for (int i = 0; i < 10; i++) {
            TrackEvent.begin(BENCH, "slice");
            TrackEvent.end(BENCH);
        }
    }

    private static void tenDisabledSlices() {
        for (int i = 0; i < 10; i++) {
            TrackEvent.begin(OFF, "slice");
            TrackEvent.end(OFF);
        }
    }

    /** A slice with two annotations (a long and a String) through the event builder. */
    @Benchmark
    public void annotatedSlice() {
        TrackEvent.event(BENCH).arg("rows", 42).arg("table", "orders").begin("slice");
        TrackEvent.end(BENCH);
    }

    /** A slice that is a step of a flow. */
    @Benchmark
    public void flowSlice() {
        TrackEvent.event(BENCH).flow(FLOW).begin("slice");
        TrackEvent.end(BENCH);
    }

    /** The builder on a disabled category: what an application pays for annotations it does not record. */
    @Benchmark
    public void disabledAnnotatedSlice() {
        TrackEvent.event(OFF).arg("rows", 42).arg("table", "orders").begin("slice");
        TrackEvent.end(OFF);
    }

    private static final long FLOW = TrackEvent.newFlowId();

    @Benchmark
    public void disabledCategory() {
        TrackEvent.begin(OFF, "slice");
        TrackEvent.end(OFF);
    }
}
