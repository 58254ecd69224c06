package io.jtrace.benchmarks.agent.jfr;

import io.jtrace.benchmarks.agent.wire.TraceFile;
import io.jtrace.benchmarks.agent.wire.Wire;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import jdk.jfr.consumer.RecordingFile;

/**
 * Per JFR event type, how many events a JFR recording holds and how many the {@code jvm.jfr} source wrote
 * into a jtrace trace, read at the wire level: a slice begin or an instant named after the type, a
 * counter packet on a {@code <type>.<field>} track (one per event), a {@code PerfSample} (execution and
 * native method samples together). Run on the two files of one JVM that ran both
 * ({@link JfrOverheadHarness}'s {@code both}), the counts should agree but for the edges: JFR's own
 * recording starts before the agent's stream and ends after it.
 *
 * <pre>java -cp benchmarks-agent/target/agent-benchmarks.jar io.jtrace.benchmarks.agent.jfr.JfrTraceCheck rec.jfr trace.pftrace</pre>
 */
public final class JfrTraceCheck {
    static final String SAMPLES = "jdk.ExecutionSample + jdk.NativeMethodSample";

    private JfrTraceCheck() {}

    public static void main(String[] args) throws IOException {
        Map<String, Long> recording = recordingCounts(Path.of(args[0]));
        Map<String, Long> trace = traceCounts(Path.of(args[1]), recording.keySet());
        long samples = recording.getOrDefault("jdk.ExecutionSample", 0L) + recording.getOrDefault("jdk.NativeMethodSample", 0L);
        recording.remove("jdk.ExecutionSample");
        recording.remove("jdk.NativeMethodSample");
        recording.put(SAMPLES, samples);
        TreeSet<String> types = new TreeSet<>(recording.keySet());
        types.addAll(trace.keySet());
        long inRecording = 0;
        long inTrace = 0;
        System.out.printf("%-45s %10s %10s%n", "event type", "recording", "trace");
        for (String type : types) {
            long r = recording.getOrDefault(type, 0L);
            long t = trace.getOrDefault(type, 0L);
            inRecording += r;
            inTrace += t;
            System.out.printf("%-45s %10d %10d%s%n", type, r, t, r == t ? "" : "  (" + (t - r) + ")");
        }
        System.out.printf("%-45s %10d %10d%n", "total", inRecording, inTrace);
    }

    static Map<String, Long> recordingCounts(Path file) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        try (RecordingFile f = new RecordingFile(file)) {
            while (f.hasMoreEvents()) {
                counts.merge(f.readEvent().getEventType().getName(), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** Events per JFR type in a trace; {@code knownTypes} resolve counter track names to their type. */
    static Map<String, Long> traceCounts(Path file, java.util.Set<String> knownTypes) throws IOException {
        Map<Long, Map<Long, String>> eventNames = new HashMap<>(); // per sequence: iid → name
        Map<Long, String> trackNames = new HashMap<>();
        Map<Long, Long> counterPacketsPerTrack = new HashMap<>();
        Map<String, Long> counts = new TreeMap<>();
        TraceFile.forEachPacket(file, packet -> {
            long sequence = 0;
            long flags = 0;
            Wire interned = null;
            Wire event = null;
            Wire descriptor = null;
            boolean sample = false;
            Wire w = new Wire(packet, 0, packet.length);
            while (w.more()) {
                switch (w.field()) {
                    case 10 -> sequence = w.varint();
                    case 13 -> flags = w.varint();
                    case 12 -> interned = w.nested();
                    case 11 -> event = w.nested();
                    case 60 -> descriptor = w.nested();
                    case 66 -> {
                        sample = true;
                        w.skip();
                    }
                    default -> w.skip();
                }
            }
            Map<Long, String> names = eventNames.computeIfAbsent(sequence, k -> new HashMap<>());
            if ((flags & 1) != 0) {
                names.clear();
            }
            if (interned != null) {
                while (interned.more()) {
                    if (interned.field() == 2) {
                        Wire n = interned.nested();
                        long iid = 0;
                        String name = null;
                        while (n.more()) {
                            switch (n.field()) {
                                case 1 -> iid = n.varint();
                                case 2 -> name = n.string();
                                default -> n.skip();
                            }
                        }
                        names.put(iid, name);
                    } else {
                        interned.skip();
                    }
                }
            }
            if (descriptor != null) {
                long uuid = 0;
                String name = null;
                while (descriptor.more()) {
                    switch (descriptor.field()) {
                        case 1 -> uuid = descriptor.varint();
                        case 2 -> name = descriptor.string();
                        default -> descriptor.skip();
                    }
                }
                trackNames.put(uuid, name);
            }
            if (sample) {
                counts.merge(SAMPLES, 1L, Long::sum);
            }
            if (event != null) {
                long type = 0;
                long nameIid = 0;
                long track = 0;
                while (event.more()) {
                    switch (event.field()) {
                        case 9 -> type = event.varint();
                        case 10 -> nameIid = event.varint();
                        case 11 -> track = event.varint();
                        default -> event.skip();
                    }
                }
                if (type == 1 || type == 3) {
                    String name = names.get(nameIid);
                    counts.merge(name == null ? "<unresolved name>" : name, 1L, Long::sum);
                } else if (type == 4) {
                    counterPacketsPerTrack.merge(track, 1L, Long::sum);
                }
            }
        });
        counterPacketsPerTrack.forEach((track, n) -> {
            String type = typeOfCounterTrack(trackNames.get(track), knownTypes);
            if (type != null) {
                counts.merge(type, n, Long::sum);
            }
        });
        return counts;
    }

    /** The longest known type that {@code <type>.<field>[ thread]} starts with; null for other counters. */
    static String typeOfCounterTrack(String trackName, java.util.Set<String> knownTypes) {
        if (trackName == null) {
            return null;
        }
        String best = null;
        for (String type : knownTypes) {
            if (trackName.startsWith(type + ".") && (best == null || type.length() > best.length())) {
                best = type;
            }
        }
        return best;
    }
}
