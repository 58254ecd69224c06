package io.jtrace.jfr.file;

import com.google.protobuf.CodedInputStream;
import io.jtrace.protos.Callstack;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.Frame;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.InternedString;
import io.jtrace.protos.Mapping;
import io.jtrace.protos.PerfSample;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackDescriptor;
import io.jtrace.protos.TrackEvent;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes a trace the way trace_processor would and records, as {@link #problems}, everything it would
 * reject or flag: a packet without sequence id, interned data used before it is defined on its
 * sequence (or without SEQ_NEEDS_INCREMENTAL_STATE, or before the sequence was cleared), a track used
 * before its descriptor, an event without timestamp, a slice end without a begin. Slices are paired as
 * trace_processor pairs them: per track, in timestamp order, an end closes the innermost open slice.
 */
final class DecodedTrace {
    record Slice(long track, String name, long start, long end, Map<String, DebugAnnotation> args, long callstack, int sequence) {}

    record Instant(long track, String name, long ts, Map<String, DebugAnnotation> args) {}

    record Counter(long track, long ts, double value) {}

    record Sample(int sequence, long ts, int pid, long tid, List<String> framesLeafFirst) {}

    final List<String> problems = new ArrayList<>();
    /** Packets that cleared their sequence's incremental state (each sequence's first, and every restart). */
    int stateClears;
    final Map<Long, TrackDescriptor> tracks = new HashMap<>();
    final List<Slice> slices = new ArrayList<>();
    final List<Instant> instants = new ArrayList<>();
    final List<Counter> counters = new ArrayList<>();
    final List<Sample> samples = new ArrayList<>();
    final List<TracePacket> clockSnapshots = new ArrayList<>();
    final Map<Integer, Integer> clockOfSequence = new HashMap<>();
    long packets;

    private final Map<Integer, SeqState> sequences = new HashMap<>();
    /** Per track, begin and end events in file order, paired after everything is read. */
    private final Map<Long, List<Object[]>> trackEvents = new HashMap<>();

    private static final class SeqState {
        boolean cleared;
        Integer clock;
        final Map<Long, String> names = new HashMap<>();
        final Map<Long, String> categories = new HashMap<>();
        final Map<Long, String> annotationNames = new HashMap<>();
        final Map<Long, String> functionNames = new HashMap<>();
        final Map<Long, Frame> frames = new HashMap<>();
        final Map<Long, Callstack> callstacks = new HashMap<>();
        final Map<Long, Mapping> mappings = new HashMap<>();
        final Map<Long, String> buildIds = new HashMap<>();
        final Map<Long, String> mappingPaths = new HashMap<>();
    }

    static DecodedTrace read(Path file) throws IOException {
        DecodedTrace t = new DecodedTrace();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            CodedInputStream cis = CodedInputStream.newInstance(in);
            while (true) {
                cis.resetSizeCounter();
                int tag = cis.readTag();
                if (tag == 0) {
                    break;
                }
                if (tag != ((1 << 3) | 2)) {
                    t.problems.add("top-level field other than packet: tag " + tag);
                    cis.skipField(tag);
                    continue;
                }
                t.packet(TracePacket.parseFrom(cis.readBytes()));
            }
        }
        t.pairSlices();
        return t;
    }

    String trackName(long uuid) {
        TrackDescriptor d = tracks.get(uuid);
        if (d == null) {
            return null;
        }
        return d.hasThread() ? d.getThread().getThreadName() : d.getName();
    }

    /** The tid of a thread track, -1 for any other track. */
    long tidOf(long uuid) {
        TrackDescriptor d = tracks.get(uuid);
        return d != null && d.hasThread() ? d.getThread().getTid() : -1;
    }

    private void packet(TracePacket p) {
        packets++;
        if (!p.hasTrustedPacketSequenceId()) {
            problems.add("packet " + packets + " has no trusted_packet_sequence_id");
            return;
        }
        int seqId = p.getTrustedPacketSequenceId();
        SeqState seq = sequences.computeIfAbsent(seqId, k -> new SeqState());
        if ((p.getSequenceFlags() & 1) != 0) {
            stateClears++;
            SeqState fresh = new SeqState();
            fresh.cleared = true;
            sequences.put(seqId, fresh);
            seq = fresh;
        }
        if (p.hasTracePacketDefaults() && p.getTracePacketDefaults().hasTimestampClockId()) {
            seq.clock = p.getTracePacketDefaults().getTimestampClockId();
            clockOfSequence.put(seqId, seq.clock);
        }
        if (p.hasInternedData()) {
            intern(seq, p.getInternedData());
        }
        if (p.hasClockSnapshot()) {
            clockSnapshots.add(p);
        }
        if (p.hasTrackDescriptor()) {
            tracks.put(p.getTrackDescriptor().getUuid(), p.getTrackDescriptor());
        }
        if (p.hasTrackEvent()) {
            trackEvent(seqId, seq, p);
        }
        if (p.hasPerfSample()) {
            perfSample(seqId, seq, p);
        }
    }

    private void needsState(SeqState seq, TracePacket p, String what) {
        if (!seq.cleared) {
            problems.add(what + " on sequence " + p.getTrustedPacketSequenceId() + " before its state was cleared");
        }
        if ((p.getSequenceFlags() & 2) == 0) {
            problems.add(what + " uses interned data without SEQ_NEEDS_INCREMENTAL_STATE");
        }
        if (!p.hasTimestamp()) {
            problems.add(what + " has no timestamp");
        }
        if (seq.clock == null && !p.hasTimestampClockId()) {
            problems.add(what + " has no clock (no defaults on its sequence)");
        }
    }

    private void intern(SeqState seq, InternedData d) {
        d.getEventNamesList().forEach(e -> seq.names.put(e.getIid(), e.getName()));
        d.getEventCategoriesList().forEach(e -> seq.categories.put(e.getIid(), e.getName()));
        d.getDebugAnnotationNamesList().forEach(e -> seq.annotationNames.put(e.getIid(), e.getName()));
        for (InternedString s : d.getFunctionNamesList()) {
            seq.functionNames.put(s.getIid(), s.getStr().toStringUtf8());
        }
        d.getBuildIdsList().forEach(s -> seq.buildIds.put(s.getIid(), s.getStr().toStringUtf8()));
        d.getMappingPathsList().forEach(s -> seq.mappingPaths.put(s.getIid(), s.getStr().toStringUtf8()));
        d.getMappingsList().forEach(m -> seq.mappings.put(m.getIid(), m));
        d.getFramesList().forEach(f -> seq.frames.put(f.getIid(), f));
        d.getCallstacksList().forEach(c -> seq.callstacks.put(c.getIid(), c));
    }

    private void trackEvent(int seqId, SeqState seq, TracePacket p) {
        TrackEvent e = p.getTrackEvent();
        needsState(seq, p, "track event");
        if (!tracks.containsKey(e.getTrackUuid())) {
            problems.add("track event on track " + e.getTrackUuid() + " before its descriptor");
        }
        for (long uuid : e.getExtraDoubleCounterTrackUuidsList()) {
            if (!tracks.containsKey(uuid)) {
                problems.add("extra counter value on track " + uuid + " before its descriptor");
            }
        }
        long ts = p.getTimestamp();
        switch (e.getType()) {
            case TYPE_SLICE_BEGIN:
            case TYPE_INSTANT: {
                String name = seq.names.get(e.getNameIid());
                if (name == null) {
                    problems.add("event name iid " + e.getNameIid() + " undefined on sequence " + seqId);
                }
                for (long c : e.getCategoryIidsList()) {
                    if (!seq.categories.containsKey(c)) {
                        problems.add("category iid " + c + " undefined on sequence " + seqId);
                    }
                }
                Map<String, DebugAnnotation> args = new HashMap<>();
                for (DebugAnnotation a : e.getDebugAnnotationsList()) {
                    String argName = seq.annotationNames.get(a.getNameIid());
                    if (argName == null) {
                        problems.add("annotation name iid " + a.getNameIid() + " undefined on sequence " + seqId);
                    }
                    args.put(argName, a);
                }
                if (e.hasCallstackIid()) {
                    resolveCallstack(seq, e.getCallstackIid(), seqId);
                }
                if (e.getType() == TrackEvent.Type.TYPE_INSTANT) {
                    instants.add(new Instant(e.getTrackUuid(), name, ts, args));
                } else {
                    trackEvents.computeIfAbsent(e.getTrackUuid(), k -> new ArrayList<>())
                            .add(new Object[] {ts, name, args, e.getCallstackIid(), seqId});
                }
                break;
            }
            case TYPE_SLICE_END:
                trackEvents.computeIfAbsent(e.getTrackUuid(), k -> new ArrayList<>()).add(new Object[] {ts, null});
                break;
            case TYPE_COUNTER:
                counters.add(new Counter(e.getTrackUuid(), ts, e.getDoubleCounterValue()));
                for (int i = 0; i < e.getExtraDoubleCounterTrackUuidsCount(); i++) {
                    counters.add(new Counter(e.getExtraDoubleCounterTrackUuids(i), ts, e.getExtraDoubleCounterValues(i)));
                }
                if (e.getExtraDoubleCounterTrackUuidsCount() != e.getExtraDoubleCounterValuesCount()) {
                    problems.add("extra counter tracks and values differ in number");
                }
                break;
            default:
                problems.add("track event of type " + e.getType());
        }
    }

    private void perfSample(int seqId, SeqState seq, TracePacket p) {
        needsState(seq, p, "perf sample");
        PerfSample s = p.getPerfSample();
        List<String> frames = s.hasCallstackIid() ? resolveCallstack(seq, s.getCallstackIid(), seqId) : List.of();
        samples.add(new Sample(seqId, p.getTimestamp(), s.getPid(), s.getTid(), frames));
    }

    /** The callstack's function names, leaf first; records a problem for anything undefined. */
    List<String> resolveCallstack(SeqState seq, long iid, int seqId) {
        Callstack c = seq.callstacks.get(iid);
        if (c == null) {
            problems.add("callstack iid " + iid + " undefined on sequence " + seqId);
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (long frameId : c.getFrameIdsList()) {
            Frame f = seq.frames.get(frameId);
            if (f == null) {
                problems.add("frame iid " + frameId + " undefined on sequence " + seqId);
                continue;
            }
            String fn = seq.functionNames.get(f.getFunctionNameId());
            if (fn == null) {
                problems.add("function name iid " + f.getFunctionNameId() + " undefined on sequence " + seqId);
            }
            Mapping m = seq.mappings.get(f.getMappingId());
            if (m == null) {
                problems.add("mapping iid " + f.getMappingId() + " undefined on sequence " + seqId);
            } else {
                if (!seq.buildIds.containsKey(m.getBuildId())) {
                    problems.add("build id iid " + m.getBuildId() + " undefined on sequence " + seqId);
                }
                for (long path : m.getPathStringIdsList()) {
                    if (!seq.mappingPaths.containsKey(path)) {
                        problems.add("mapping path iid " + path + " undefined on sequence " + seqId);
                    }
                }
            }
            names.add(0, fn);
        }
        return names;
    }

    @SuppressWarnings("unchecked")
    private void pairSlices() {
        for (Map.Entry<Long, List<Object[]>> e : trackEvents.entrySet()) {
            List<Object[]> events = new ArrayList<>(e.getValue());
            events.sort(Comparator.comparingLong(o -> (Long) o[0])); // stable: file order among equal times
            List<Object[]> open = new ArrayList<>();
            for (Object[] ev : events) {
                if (ev[1] != null) {
                    open.add(ev);
                } else if (open.isEmpty()) {
                    problems.add("slice end without begin on track " + e.getKey());
                } else {
                    Object[] begin = open.remove(open.size() - 1);
                    slices.add(new Slice(e.getKey(), (String) begin[1], (Long) begin[0], (Long) ev[0],
                            (Map<String, DebugAnnotation>) begin[2], (Long) begin[3], (Integer) begin[4]));
                }
            }
            if (!open.isEmpty()) {
                problems.add(open.size() + " slice(s) never ended on track " + e.getKey());
            }
        }
    }
}
