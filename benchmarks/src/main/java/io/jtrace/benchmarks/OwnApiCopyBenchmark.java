package io.jtrace.benchmarks;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import io.jtrace.benchmarks.owncopy.OwnCopySlices;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * An application's own copy of the API (a child-first class loader's, as in a servlet container),
 * bound by the agent through its adapter, against the agent's own copy in the same run: the same slice
 * and annotated slice. Both must allocate nothing; the difference is what the adapter costs per event.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class OwnApiCopyBenchmark {
    private static final Category BENCH = Category.of("bench");

    private EmbeddedTracing tracing;
    private URLClassLoader webApp;
    private Runnable ownCopySlice;
    private Runnable ownCopyAnnotatedSlice;

    @Setup(Level.Trial)
    public void start() throws Exception {
        // Chunks freed at once: the application thread's own cost, where the adapter's share shows.
        tracing = EmbeddedTracing.start("writer");
        URL jar = OwnApiCopyBenchmark.class.getProtectionDomain().getCodeSource().getLocation();
        webApp = new URLClassLoader("web-app", new URL[] {jar}, ClassLoader.getPlatformClassLoader());
        ownCopySlice = instance(OwnCopySlices.Plain.class);
        ownCopyAnnotatedSlice = instance(OwnCopySlices.Annotated.class);
        if (webApp.loadClass(Category.class.getName()) == Category.class) {
            throw new IllegalStateException("the web application shares the agent's copy of the API");
        }
    }

    private Runnable instance(Class<? extends Runnable> c) throws ReflectiveOperationException {
        return (Runnable) webApp.loadClass(c.getName()).getConstructor().newInstance();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        tracing.close();
        webApp.close();
    }

    @Benchmark
    public void agentsCopySlice() {
        TrackEvent.begin(BENCH, "slice");
        TrackEvent.end(BENCH);
    }

    @Benchmark
    public void ownCopySlice() {
        ownCopySlice.run();
    }

    @Benchmark
    public void agentsCopyAnnotatedSlice() {
        TrackEvent.event(BENCH).arg("rows", 42).arg("table", "orders").begin("slice");
        TrackEvent.end(BENCH);
    }

    @Benchmark
    public void ownCopyAnnotatedSlice() {
        ownCopyAnnotatedSlice.run();
    }
}
