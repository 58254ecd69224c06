package io.jtrace.agent.threads;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The native names of this process's OS threads, from {@code /proc/self/task/<tid>/comm}: how a new
 * Java thread is usually placed without a thread dump (which stops the JVM). HotSpot names a thread's
 * OS thread after its Java name when it starts, cut to the first 15 bytes of UTF-8 (JDK 17 and 25 alike);
 * a Java thread whose cut name is the only one among the threads to place, and matches exactly one
 * OS thread nobody has placed, is that OS thread. Anything ambiguous is left to the dump.
 *
 * <p>A new OS thread carries its creator's name until HotSpot renames it, from the new thread itself
 * as it first runs: a few microseconds in on an idle machine, but tens of milliseconds on a loaded one,
 * where a new thread may wait that long to be scheduled. So an OS thread's name is read from the call
 * after the one that first saw it, read again at each call during its first {@link #YOUNG_SAMPLES}
 * samples, and then kept while the thread lives (most OS threads are the JVM's own, never placed:
 * reading their names at every call would be wasted). Linux only: elsewhere (no {@code /proc}) it finds nothing and every thread goes to the
 * dump. Sampler thread only.
 */
final class OsThreadNames {
    /** HotSpot's native names: 15 bytes and a NUL (pthread_setname_np's limit). */
    static final int NATIVE_NAME_BYTES = 15;
    private static final Path TASKS = Path.of("/proc/self/task");

    /** Native name (as ISO-8859-1, byte for byte) of every OS thread read so far, by tid. */
    private final Map<Long, String> names = new HashMap<>();
    /** Samples after its first listing during which an OS thread's name is read at every call. */
    static final int YOUNG_SAMPLES = 10;
    /** The sample in which each live tid was first listed. */
    private final Map<Long, Long> firstListed = new HashMap<>();

    /** An OS thread nobody has placed: its tid (-1 when its name is shared) and the sample that first listed it. */
    record Task(long tid, long firstListed) {}

    /**
     * Live OS threads not in {@code placed}, by native name, listed during sample {@code sample}; a name
     * shared by several maps to a task with tid -1 (ambiguous). Empty where {@code /proc} cannot be read.
     */
    Map<String, Task> unplacedByName(Set<Long> placed, long sample) {
        Set<Long> live = new HashSet<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                long tid;
                try {
                    tid = Long.parseLong(task.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                live.add(tid);
                Long first = firstListed.putIfAbsent(tid, sample);
                boolean young = first != null && sample - first <= YOUNG_SAMPLES;
                if (!placed.contains(tid) && first != null && first != sample && (young || !names.containsKey(tid))) {
                    String name = readName(task);
                    if (name != null) {
                        names.put(tid, name);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        firstListed.keySet().retainAll(live);
        Map<String, Task> byName = new HashMap<>();
        for (Iterator<Map.Entry<Long, String>> it = names.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, String> e = it.next();
            if (!live.contains(e.getKey())) {
                it.remove(); // ended: its tid may come back for another thread, with another name
            } else if (!placed.contains(e.getKey())) {
                byName.merge(e.getValue(), new Task(e.getKey(), firstListed.get(e.getKey())), (a, b) -> new Task(-1, 0));
            }
        }
        return byName;
    }

    /** Forgets a tid's name: its thread was placed, or may have renamed itself. */
    void forget(long tid) {
        names.remove(tid);
    }

    /** The native name HotSpot gives a thread called {@code javaName}, as ISO-8859-1 (byte for byte). */
    static String nativeName(String javaName) {
        byte[] utf8 = javaName.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(utf8.length, NATIVE_NAME_BYTES);
        return new String(utf8, 0, n, StandardCharsets.ISO_8859_1);
    }

    private static String readName(Path task) {
        try {
            byte[] comm = Files.readAllBytes(task.resolve("comm"));
            int n = comm.length;
            if (n > 0 && comm[n - 1] == '\n') {
                n--;
            }
            return new String(comm, 0, n, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return null; // ended meanwhile
        }
    }
}
