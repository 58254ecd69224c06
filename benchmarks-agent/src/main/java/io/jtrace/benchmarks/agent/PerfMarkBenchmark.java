package io.jtrace.benchmarks.agent;

import io.perfmark.PerfMark;
import io.perfmark.impl.Storage;
import java.util.concurrent.TimeUnit;
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
 * The other peer: one PerfMark task (startTask + stopTask with a constant name), PerfMark enabled. It
 * records into per-thread in-memory rings and writes no file, so it is a floor rather than a like for like.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
public class PerfMarkBenchmark {
    @Setup(Level.Trial)
    public void enable() {
        PerfMark.setEnabled(true);
        task();
        if (Storage.read().stream().allMatch(marks -> marks.isEmpty())) {
            throw new IllegalStateException("PerfMark records nothing: no implementation on the class path");
        }
    }

    @Benchmark
    @Threads(1)
    public void oneThread() {
        task();
    }

    @Benchmark
    @Threads(2)
    public void twoThreads() {
        task();
    }

    @Benchmark
    @Threads(4)
    public void fourThreads() {
        task();
    }

    private static void task() {
        PerfMark.startTask("slice");
        PerfMark.stopTask("slice");
    }
}
