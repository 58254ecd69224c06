package io.jtrace.benchmarks;

import io.jtrace.jfr.file.JfrToTrace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordingFile;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@code jtrace convert} against the bare parse of the same recording by the JDK's parser, in one run:
 * time per pass over the file. The recording is made once per fork, with JFR's {@code profile} settings,
 * of busy threads that allocate, sleep and lock (execution samples, allocation samples, parks, GCs);
 * its event count is printed so events/s can be derived. The ratio of the two scores is what
 * converting costs beyond parsing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class JfrConvertBenchmark {
    private Path dir;
    private Path recording;
    private Path out;
    static volatile Object sink;

    @Setup(Level.Trial)
    public void record() throws Exception {
        dir = Files.createTempDirectory("jtrace-jfr-bench");
        recording = dir.resolve("profile.jfr");
        out = dir.resolve("profile.pftrace");
        ProfileRecording.record(recording, 4, JfrConvertBenchmark::work);
        long events = 0;
        try (RecordingFile f = new RecordingFile(recording)) {
            while (f.hasMoreEvents()) {
                f.readEvent();
                events++;
            }
        }
        System.out.println("\nrecording: " + events + " events, " + Files.size(recording) + " bytes");
    }

    private static void work() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        Object lock = new Object();
        while (System.nanoTime() < end) {
            List<byte[]> garbage = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                garbage.add(new byte[256]);
            }
            synchronized (lock) {
                sink = garbage;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @TearDown(Level.Trial)
    public void clean() throws IOException {
        Files.deleteIfExists(out);
        Files.deleteIfExists(recording);
        Files.deleteIfExists(dir);
    }

    @Benchmark
    public long bareParse(Blackhole bh) throws IOException {
        long n = 0;
        try (RecordingFile f = new RecordingFile(recording)) {
            while (f.hasMoreEvents()) {
                bh.consume(f.readEvent());
                n++;
            }
        }
        return n;
    }

    @Benchmark
    public long convert() throws Exception {
        return new JfrToTrace(false, null).convert(recording, out).eventsWritten();
    }
}
