package io.jtrace.jfr.file;

import io.jtrace.jfr.format.TrackUuids;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Track uuids of a trace written from a file: derived from the process's uuid, with the uuids a merged
 * trace already has for its process and threads taking precedence, so JFR events land on them.
 */
final class FileTrackUuids implements TrackUuids {
    private final long process;
    private final Map<Long, Long> existingThreads;

    FileTrackUuids(long process, Map<Long, Long> existingThreads) {
        this.process = process;
        this.existingThreads = existingThreads;
    }

    /** A process uuid for a converted recording of {@code pid}: a fixed derivation, so a re-run gives the same trace. */
    static long processUuidFor(int pid) {
        return mix(0x6A66722D62726467L ^ pid) | 1;
    }

    @Override
    public long process() {
        return process;
    }

    @Override
    public long thread(long tid) {
        Long existing = existingThreads.get(tid);
        return existing != null ? existing : mix(process ^ mix(tid ^ 0x7468726561644CL));
    }

    @Override
    public long virtualThread(long javaThreadId) {
        return mix(process ^ mix(javaThreadId ^ 0x7669727475616CL));
    }

    @Override
    public long named(String name) {
        long h = 0x6E616D6564L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h = 31 * h + b;
        }
        return mix(process ^ mix(h));
    }

    /** SplitMix64's finalizer. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
