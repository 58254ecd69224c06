package io.jtrace.benchmarks;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
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
 * What a slice is measured against: a JFR duration event (two String fields, and two long fields) in
 * an in-memory recording; a raw append of a begin/end pair (two nanoTime reads) to a direct buffer;
 * and System.nanoTime() alone.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PeerBenchmark {
    @Name("jtrace.bench.StringSlice")
    static final class StringSlice extends Event {
        String category;
        String name;
    }

    @Name("jtrace.bench.LongSlice")
    static final class LongSlice extends Event {
        long category;
        long name;
    }

    private Recording recording;
    private ByteBuffer raw;

    @Setup(Level.Trial)
    public void start() {
        recording = new Recording();
        recording.enable(StringSlice.class).withoutThreshold().withoutStackTrace();
        recording.enable(LongSlice.class).withoutThreshold().withoutStackTrace();
        recording.setToDisk(false);
        recording.start();
        raw = ByteBuffer.allocateDirect(4 * 1024 * 1024).order(ByteOrder.LITTLE_ENDIAN);
    }

    @TearDown(Level.Trial)
    public void stop() {
        recording.stop();
        recording.close();
    }

    @Benchmark
    public void jfrStringEvent() {
        StringSlice e = new StringSlice();
        e.begin();
        e.category = "bench";
        e.name = "slice";
        e.commit();
    }

    @Benchmark
    public void jfrLongEvent() {
        LongSlice e = new LongSlice();
        e.begin();
        e.category = 1;
        e.name = 2;
        e.commit();
    }

    /** A begin and an end record (type + timestamp each) appended to a direct buffer, wrapping when full. */
    @Benchmark
    public void rawAppend() {
        ByteBuffer b = raw;
        if (b.remaining() < 32) {
            b.clear();
        }
        b.putLong(1L);
        b.putLong(System.nanoTime());
        b.putLong(2L);
        b.putLong(System.nanoTime());
    }

    @Benchmark
    public long nanoTime() {
        return System.nanoTime();
    }
}
