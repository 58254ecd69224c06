package io.jtrace.benchmarks.agent;

import java.util.concurrent.TimeUnit;
import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * The peer of {@link JtraceAgentBenchmark}: one JFR duration event with a String field (begin, set,
 * commit), no stack trace, with JFR as users run it: {@code -XX:StartFlightRecording} writing to a file.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = "-XX:StartFlightRecording:filename=benchmarks-agent/target/jmh-jfr.jfr")
public class JfrFileBenchmark {
    @Name("jtrace.bench.Slice")
    @StackTrace(false)
    static final class SliceEvent extends Event {
        String name;
    }

    @Setup(Level.Trial)
    public void checkRecording() {
        if (FlightRecorder.getFlightRecorder().getRecordings().isEmpty()) {
            throw new IllegalStateException("no JFR recording is running");
        }
    }

    @Benchmark
    @Threads(1)
    public void oneThread() {
        event();
    }

    @Benchmark
    @Threads(2)
    public void twoThreads() {
        event();
    }

    @Benchmark
    @Threads(4)
    public void fourThreads() {
        event();
    }

    private static void event() {
        SliceEvent e = new SliceEvent();
        e.begin();
        e.name = "slice";
        e.commit();
    }
}
