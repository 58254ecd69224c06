package io.jtrace.benchmarks;

import io.jtrace.benchmarks.jfrparse.DemoRecording;
import io.jtrace.jfr.file.JfrToTrace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordingFile;
import org.openjdk.jmc.common.item.IItem;
import org.openjdk.jmc.common.item.IItemIterable;
import org.openjdk.jmc.flightrecorder.JfrLoaderToolkit;
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
 * {@code jtrace convert} against the bare parse of the same recording by the JDK's parser (what convert
 * parses with) and by JMC's ({@code JfrLoaderToolkit.loadEvents}, every item visited), in one run: time
 * per pass over the file. The recording is made once per fork, with JFR's {@code profile} settings,
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

    @Setup(Level.Trial)
    public void record() throws Exception {
        dir = Files.createTempDirectory("jtrace-jfr-bench");
        recording = dir.resolve("profile.jfr");
        out = dir.resolve("profile.pftrace");
        DemoRecording.record(recording);
        long events = 0;
        try (RecordingFile f = new RecordingFile(recording)) {
            while (f.hasMoreEvents()) {
                f.readEvent();
                events++;
            }
        }
        System.out.println("\nrecording: " + events + " events, " + Files.size(recording) + " bytes");
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

    /** JMC's parser: the whole recording loaded into memory, then every item visited. */
    @Benchmark
    public long jmcParse(Blackhole bh) throws Exception {
        long n = 0;
        for (IItemIterable ofType : JfrLoaderToolkit.loadEvents(recording.toFile())) {
            for (IItem item : ofType) {
                bh.consume(item);
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
