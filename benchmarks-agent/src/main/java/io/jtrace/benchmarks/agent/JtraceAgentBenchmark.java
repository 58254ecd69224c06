package io.jtrace.benchmarks.agent;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * One slice (begin + end, interned name and category) through the public API with jtrace as users run
 * it: the shaded jtrace.jar as a -javaagent with default options and a trace file, so its commit
 * thread, its service thread and the file writer share the machine with the benchmark threads. When
 * the threads outrun the pipeline the SMB fills and events are dropped (and counted): what is measured
 * then is the cost of an event under overload. Run from the repository root (the agent's path is
 * relative to it).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "-javaagent:agent/target/jtrace.jar=start,file=benchmarks-agent/target/jmh-jtrace.pftrace")
public class JtraceAgentBenchmark {
    private static final Category CATEGORY = Category.of("bench");

    @Setup(Level.Trial)
    public void checkTracing() {
        if (!CATEGORY.isEnabled()) {
            throw new IllegalStateException("jtrace is not tracing: run from the repository root after mvn package");
        }
    }

    @Benchmark
    @Threads(1)
    public void oneThread() {
        slice();
    }

    @Benchmark
    @Threads(2)
    public void twoThreads() {
        slice();
    }

    @Benchmark
    @Threads(4)
    public void fourThreads() {
        slice();
    }

    /**
     * Nested slices, as a request handler makes them: "request" around "parse" and "query", so each begin
     * names something other than the event before it. Per slice, comparable with {@link #oneThread}.
     */
    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(3)
    public void nestedSlices() {
        TrackEvent.begin(CATEGORY, "request");
        TrackEvent.begin(CATEGORY, "parse");
        TrackEvent.end(CATEGORY);
        TrackEvent.begin(CATEGORY, "query");
        TrackEvent.end(CATEGORY);
        TrackEvent.end(CATEGORY);
    }

    /** A slice with two annotations, a long and a String, through the event builder. */
    @Benchmark
    @Threads(1)
    public void annotatedSlice() {
        TrackEvent.event(CATEGORY).arg("rows", 42).arg("table", "orders").begin("slice");
        TrackEvent.end(CATEGORY);
    }

    /** A slice that is a step of a flow (an arrow to the next event with the same id). */
    @Benchmark
    @Threads(1)
    public void flowSlice() {
        TrackEvent.event(CATEGORY).flow(FLOW).begin("slice");
        TrackEvent.end(CATEGORY);
    }

    private static final long FLOW = TrackEvent.newFlowId();

    private static void slice() {
        TrackEvent.begin(CATEGORY, "slice");
        TrackEvent.end(CATEGORY);
    }
}
