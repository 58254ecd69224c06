package io.jtrace.benchmarks.jfrparse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * The recording the convert benchmarks parse: JFR's {@code profile} settings over 4 threads that
 * allocate, lock and sleep for 3 s (execution and allocation samples, parks, GCs; about 7,000 events,
 * 300 KB, one chunk), and big files made of it: a JFR file is a sequence of self-contained chunks, so
 * copies of one concatenated (each moved in time) are a valid recording with that many chunks.
 */
public final class DemoRecording {
    /** Offsets in a chunk header (JFR 1.0/2.x): the chunk's size, its start in epoch ns, its duration. */
    private static final int CHUNK_SIZE = 8;
    private static final int CHUNK_START_NANOS = 32;
    private static final int CHUNK_DURATION_NANOS = 40;
    static volatile Object sink;

    private DemoRecording() {}

    /** Records the demo workload in this JVM into {@code file}. */
    public static void record(Path file) throws IOException, ParseException, InterruptedException {
        record(file, 4, DemoRecording::work);
    }

    /**
     * Records, with JFR's {@code profile} settings, {@code threads} threads named {@code bench-worker-<i>}
     * running {@code work} to its end, into {@code file}.
     */
    public static void record(Path file, int threads, Runnable work) throws IOException, ParseException, InterruptedException {
        try (Recording r = new Recording(Configuration.getConfiguration("profile"))) {
            r.start();
            List<Thread> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(work, "bench-worker-" + t);
                all.add(w);
                w.start();
            }
            for (Thread w : all) {
                w.join();
            }
            r.stop();
            r.dump(file);
        }
    }

    /** One step of the demo work: 1,000 small arrays of garbage, published under {@code lock}; returns them. */
    public static List<byte[]> allocateUnder(Object lock) {
        List<byte[]> garbage = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            garbage.add(new byte[256]);
        }
        synchronized (lock) {
            sink = garbage;
        }
        return garbage;
    }

    /**
     * Writes {@code copies} copies of the recording {@code one} one after another into {@code big}, each
     * copy's chunks moved later in time (their headers' start, in epoch ns, shifted by the span of the
     * copies before): a long recording of the same activity repeating, not the same events again at the
     * same instants (which JMC's parser would merge as duplicates).
     */
    public static void concatenate(Path one, int copies, Path big) throws IOException {
        byte[] original = Files.readAllBytes(one);
        ByteBuffer copy = ByteBuffer.wrap(original.clone()); // big-endian, as JFR's headers are
        long span = 0;
        for (int offset = 0; offset < original.length; offset += (int) copy.getLong(offset + CHUNK_SIZE)) {
            span = Math.max(span, copy.getLong(offset + CHUNK_START_NANOS) + copy.getLong(offset + CHUNK_DURATION_NANOS)
                    - copy.getLong(CHUNK_START_NANOS));
        }
        span += 1_000_000; // a millisecond between copies
        try (OutputStream out = Files.newOutputStream(big, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            for (int i = 0; i < copies; i++) {
                for (int offset = 0; offset < original.length; offset += (int) copy.getLong(offset + CHUNK_SIZE)) {
                    copy.putLong(offset + CHUNK_START_NANOS, ByteBuffer.wrap(original).getLong(offset + CHUNK_START_NANOS) + i * span);
                }
                out.write(copy.array());
            }
        }
    }

    /** The file's first bytes, to tell a JFR recording ({@code FLR\0}) from anything else. */
    static boolean looksLikeRecording(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 'F' && magic[1] == 'L' && magic[2] == 'R' && magic[3] == 0;
        }
    }

    private static void work() {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        Object lock = new Object();
        while (System.nanoTime() < end) {
            allocateUnder(lock);
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
