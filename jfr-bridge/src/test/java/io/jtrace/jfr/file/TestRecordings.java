package io.jtrace.jfr.file;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;

/** Recordings made in this JVM with {@link Recording}: application events, samples, counters, sleeps. */
final class TestRecordings {
    @Name("jtrace.test.Work")
    @Label("Work")
    static final class Work extends Event {
        @Label("item")
        int item;
        @Label("what")
        String what;
    }

    @Name("jtrace.test.Marker")
    @Label("Marker")
    static final class Marker extends Event {
        @Label("value")
        long value;
    }

    static volatile long sink;

    private TestRecordings() {}

    /** Workers named {@code jfr-worker-N} do nested Work slices of busy CPU (so they get sampled), markers and sleeps. */
    static Path record(Path file, int threads, int iterations) throws IOException, InterruptedException {
        return record(file, threads, iterations, r -> r.enable("jdk.JVMInformation"));
    }

    /** {@code identity} enables the events that tell the JVM's pid, or none. */
    static Path record(Path file, int threads, int iterations, Consumer<Recording> identity)
            throws IOException, InterruptedException {
        try (Recording r = new Recording()) {
            r.enable("jtrace.test.Work");
            r.enable("jtrace.test.Marker");
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
            r.enable("jdk.CPULoad").withPeriod(Duration.ofMillis(100));
            r.enable("jdk.JavaThreadStatistics").withPeriod(Duration.ofMillis(100));
            r.enable("jdk.ThreadSleep").withThreshold(Duration.ZERO);
            r.enable("jdk.ThreadStart");
            identity.accept(r);
            r.start();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> work(iterations), "jfr-worker-" + t);
                workers.add(w);
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
            r.stop();
            r.dump(file);
        }
        return file;
    }

    private static void work(int iterations) {
        for (int i = 0; i < iterations; i++) {
            Work outer = new Work();
            outer.begin();
            Work inner = new Work();
            inner.begin();
            spin(3);
            inner.item = i;
            inner.what = "inner";
            inner.commit();
            spin(2);
            outer.item = i;
            outer.what = "outer";
            outer.commit();
            Marker m = new Marker();
            m.value = i;
            m.commit();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void spin(long millis) {
        long end = System.nanoTime() + millis * 1_000_000;
        long x = 0;
        do {
            for (int i = 0; i < 10_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
        } while (System.nanoTime() < end);
        sink = x;
    }
}
