package io.jtrace.jfr.format;

import io.jtrace.producer.tracks.SequenceHeader;
import io.jtrace.protos.Callstack;
import io.jtrace.protos.DebugAnnotationName;
import io.jtrace.protos.EventCategory;
import io.jtrace.protos.EventName;
import io.jtrace.protos.Frame;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.InternedString;
import io.jtrace.protos.Mapping;
import io.jtrace.protos.TracePacket;
import io.jtrace.shm.proto.ProtoWriter;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;

/**
 * One packet sequence and its incremental state: the header that opens it (state cleared, the clock of
 * its timestamps), and the names, frames and callstacks interned on it. Every packet that refers to
 * interned data says so ({@code SEQ_NEEDS_INCREMENTAL_STATE}) and carries the entries it is the first
 * to use, so trace_processor has every iid before its first use.
 *
 * <p>Use: {@link #prepare()} once per event (may start the sequence over), resolve iids, then
 * {@link #beginPacket(long)} … {@link #endPacket()}.
 */
public final class SequenceWriter {
    /** The one mapping every Java frame belongs to: trace_processor needs a mapping (with a build id) per frame. */
    private static final long JAVA_MAPPING_IID = 1;
    private static final byte[] JAVA_MAPPING_PATH = "java".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NO_BUILD_ID = new byte[0];

    private final PacketOut out;
    private final int clockId;
    private final int maxInterned;
    private final InternTable<String> categories = new InternTable<>();
    private final InternTable<String> eventNames = new InternTable<>();
    private final InternTable<String> annotationNames = new InternTable<>();
    private final InternTable<String> functionNames = new InternTable<>();
    private final InternTable<JavaFrame> frames = new InternTable<>();
    private final InternTable<CallstackKey> callstacks = new InternTable<>();
    /*
     * The JDK's parser resolves each constant (stack trace, method) of a chunk to one object, which every
     * event of the chunk shares: by identity, a repeated stack costs one lookup instead of a string and a
     * record per frame. Bounded (cleared when full) so old chunks' objects are not held forever.
     */
    private static final int IDENTITY_CACHE_LIMIT = 50_000;
    private final Map<RecordedStackTrace, Long> stackIids = new IdentityHashMap<>();
    private final Map<RecordedMethod, Long> functionIids = new IdentityHashMap<>();
    private boolean started;
    private boolean mappingWritten;
    private long restarts;
    /** Counts the times the interning state was cleared: iids a caller kept from an older generation are void. */
    private long generation;

    /**
     * {@code maxInterned} bounds the memory of the interning tables: past it, the sequence starts over
     * (state cleared, entries written again as they are next used), so a recording of any size converts
     * in bounded memory.
     */
    public SequenceWriter(PacketOut out, int clockId, int maxInterned) {
        this.out = out;
        this.clockId = clockId;
        this.maxInterned = maxInterned;
    }

    /** Call before resolving the iids of one event. */
    public void prepare() {
        int total = categories.size() + eventNames.size() + annotationNames.size() + functionNames.size()
                + frames.size() + callstacks.size();
        if (total > maxInterned) {
            clearIncrementalState();
        }
    }

    /** Forget everything interned: the next packet opens the sequence again. */
    public void clearIncrementalState() {
        if (started) {
            restarts++;
        }
        started = false;
        generation++;
        mappingWritten = false;
        categories.clear();
        eventNames.clear();
        annotationNames.clear();
        functionNames.clear();
        frames.clear();
        callstacks.clear();
        stackIids.clear();
        functionIids.clear();
    }

    /** Changes whenever what was interned is forgotten; iids resolved in one generation hold through it. */
    public long generation() {
        return generation;
    }

    /** How often the sequence started over to bound its interning tables. */
    public long restarts() {
        return restarts;
    }

    public long category(String name) {
        return categories.iid(name);
    }

    public long eventName(String name) {
        return eventNames.iid(name);
    }

    public long annotationName(String name) {
        return annotationNames.iid(name);
    }

    /**
     * The iid of a stack trace's callstack, root first as Perfetto wants (JFR lists the top frame
     * first); 0 for a stack trace without frames.
     */
    public long callstack(RecordedStackTrace stackTrace) {
        Long cached = stackIids.get(stackTrace);
        if (cached != null) {
            return cached;
        }
        if (stackIids.size() >= IDENTITY_CACHE_LIMIT) {
            stackIids.clear();
        }
        long iid = internCallstack(stackTrace);
        stackIids.put(stackTrace, iid);
        return iid;
    }

    private long internCallstack(RecordedStackTrace stackTrace) {
        List<RecordedFrame> jfrFrames = stackTrace.getFrames();
        int n = jfrFrames.size();
        if (n == 0) {
            return 0;
        }
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            RecordedFrame f = jfrFrames.get(i);
            long function = function(f.getMethod());
            ids[n - 1 - i] = frames.iid(new JavaFrame(function, Math.max(0, f.getLineNumber()), frameKind(f)));
        }
        return callstacks.iid(new CallstackKey(ids));
    }

    private long function(RecordedMethod method) {
        if (method == null) {
            return functionNames.iid(functionName(null));
        }
        Long cached = functionIids.get(method);
        if (cached != null) {
            return cached;
        }
        if (functionIids.size() >= IDENTITY_CACHE_LIMIT) {
            functionIids.clear();
        }
        long iid = functionNames.iid(functionName(method));
        functionIids.put(method, iid);
        return iid;
    }

    /** {@code pkg.Class.method}: what a flame graph node is named after. */
    public static String functionName(RecordedMethod method) {
        if (method == null) {
            return "<unknown>";
        }
        String type = method.getType() == null ? "<unknown>" : method.getType().getName();
        return type + "." + method.getName();
    }

    private static int frameKind(RecordedFrame f) {
        String type = f.getType();
        if (type == null) {
            return Frame.Kind.KIND_UNKNOWN_VALUE;
        }
        switch (type) {
            case "Interpreted":
                return Frame.Kind.KIND_INTERPRETED_VALUE;
            case "JIT compiled":
            case "Inlined":
                return Frame.Kind.KIND_JIT_VALUE;
            case "Native":
                return Frame.Kind.KIND_NATIVE_VALUE;
            default:
                return Frame.Kind.KIND_UNKNOWN_VALUE;
        }
    }

    /**
     * Opens a packet at {@code timestamp} (on the sequence's clock) that uses interned data; writes the
     * sequence's header packet first when the sequence (re)starts.
     */
    public ProtoWriter beginPacket(long timestamp) {
        ensureStarted();
        ProtoWriter p = out.beginPacket();
        p.varint(TracePacket.TIMESTAMP_FIELD_NUMBER, timestamp);
        p.varint(TracePacket.SEQUENCE_FLAGS_FIELD_NUMBER, SequenceHeader.SEQ_NEEDS_INCREMENTAL_STATE);
        writePendingInterned(p);
        return p;
    }

    /** Opens a packet without timestamp or interned data (track descriptors). */
    public ProtoWriter beginPlainPacket() {
        ensureStarted();
        return out.beginPacket();
    }

    public void endPacket() {
        out.endPacket();
    }

    private void ensureStarted() {
        if (started) {
            return;
        }
        started = true;
        SequenceHeader.writeOnClock(out.beginPacket(), clockId);
        out.endPacket();
    }

    private void writePendingInterned(ProtoWriter p) {
        boolean stacks = frames.hasPending() || callstacks.hasPending() || functionNames.hasPending();
        if (!categories.hasPending() && !eventNames.hasPending() && !annotationNames.hasPending() && !stacks) {
            return;
        }
        p.beginNested(TracePacket.INTERNED_DATA_FIELD_NUMBER);
        writeNamed(p, InternedData.EVENT_CATEGORIES_FIELD_NUMBER, categories,
                EventCategory.IID_FIELD_NUMBER, EventCategory.NAME_FIELD_NUMBER);
        writeNamed(p, InternedData.EVENT_NAMES_FIELD_NUMBER, eventNames,
                EventName.IID_FIELD_NUMBER, EventName.NAME_FIELD_NUMBER);
        writeNamed(p, InternedData.DEBUG_ANNOTATION_NAMES_FIELD_NUMBER, annotationNames,
                DebugAnnotationName.IID_FIELD_NUMBER, DebugAnnotationName.NAME_FIELD_NUMBER);
        writeNamed(p, InternedData.FUNCTION_NAMES_FIELD_NUMBER, functionNames,
                InternedString.IID_FIELD_NUMBER, InternedString.STR_FIELD_NUMBER);
        if (stacks && !mappingWritten) {
            writeJavaMapping(p);
            mappingWritten = true;
        }
        for (int i = 0; i < frames.pendingCount(); i++) {
            JavaFrame f = frames.pendingKey(i);
            long iid = frames.pendingIid(i);
            p.beginNested(InternedData.FRAMES_FIELD_NUMBER);
            p.varint(Frame.IID_FIELD_NUMBER, iid);
            p.varint(Frame.FUNCTION_NAME_ID_FIELD_NUMBER, f.functionIid());
            p.varint(Frame.MAPPING_ID_FIELD_NUMBER, JAVA_MAPPING_IID);
            // A distinct pc per frame: trace_processor keys frames of a mapping by (rel_pc, name).
            p.varint(Frame.REL_PC_FIELD_NUMBER, iid);
            if (f.line() > 0) {
                p.varint(Frame.LINE_NUMBER_FIELD_NUMBER, f.line());
            }
            if (f.kind() != Frame.Kind.KIND_UNKNOWN_VALUE) {
                p.varint(Frame.KIND_FIELD_NUMBER, f.kind());
            }
            p.endNested();
        }
        frames.clearPending();
        for (int i = 0; i < callstacks.pendingCount(); i++) {
            p.beginNested(InternedData.CALLSTACKS_FIELD_NUMBER);
            p.varint(Callstack.IID_FIELD_NUMBER, callstacks.pendingIid(i));
            for (long frame : callstacks.pendingKey(i).frameIids()) {
                p.varint(Callstack.FRAME_IDS_FIELD_NUMBER, frame);
            }
            p.endNested();
        }
        callstacks.clearPending();
        p.endNested();
    }

    private static void writeNamed(ProtoWriter p, int field, InternTable<String> table, int iidField, int nameField) {
        for (int i = 0; i < table.pendingCount(); i++) {
            p.beginNested(field);
            p.varint(iidField, table.pendingIid(i));
            p.string(nameField, table.pendingKey(i));
            p.endNested();
        }
        table.clearPending();
    }

    private static void writeJavaMapping(ProtoWriter p) {
        p.beginNested(InternedData.BUILD_IDS_FIELD_NUMBER);
        p.varint(InternedString.IID_FIELD_NUMBER, 1);
        p.bytes(InternedString.STR_FIELD_NUMBER, NO_BUILD_ID, 0, 0);
        p.endNested();
        p.beginNested(InternedData.MAPPING_PATHS_FIELD_NUMBER);
        p.varint(InternedString.IID_FIELD_NUMBER, 1);
        p.bytes(InternedString.STR_FIELD_NUMBER, JAVA_MAPPING_PATH, 0, JAVA_MAPPING_PATH.length);
        p.endNested();
        p.beginNested(InternedData.MAPPINGS_FIELD_NUMBER);
        p.varint(Mapping.IID_FIELD_NUMBER, JAVA_MAPPING_IID);
        p.varint(Mapping.BUILD_ID_FIELD_NUMBER, 1);
        p.varint(Mapping.PATH_STRING_IDS_FIELD_NUMBER, 1);
        p.endNested();
    }
}
