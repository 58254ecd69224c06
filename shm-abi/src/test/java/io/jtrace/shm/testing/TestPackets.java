package io.jtrace.shm.testing;

import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Random {@link TracePacket}s built with protobuf-java, and the same packets written field by field
 * with a {@link ProtoWriter}, so a test can compare what protobuf-java parses back with what it built.
 */
public final class TestPackets {
    private TestPackets() {}

    /** A random packet with the given timestamp; strings have at most {@code maxChars} chars. */
    public static TracePacket randomPacket(Random r, long timestamp, int maxChars, int maxMarkerBytes) {
        TracePacket.Builder p = TracePacket.newBuilder().setTimestamp(timestamp);
        if (r.nextBoolean()) {
            p.setTimestampClockId(r.nextInt());
        }
        if (r.nextInt(3) == 0) {
            p.setSequenceFlags(r.nextInt(4));
        }
        int data = r.nextInt(10);
        if (data < 8) {
            p.setTrackEvent(randomTrackEvent(r, maxChars));
        } else if (data == 8 && maxMarkerBytes > 0) {
            byte[] marker = new byte[r.nextInt(maxMarkerBytes + 1)];
            r.nextBytes(marker);
            p.setSynchronizationMarker(ByteString.copyFrom(marker));
        }
        if (r.nextInt(3) == 0) {
            InternedData.Builder interned = InternedData.newBuilder();
            for (int i = 1 + r.nextInt(4); i > 0; i--) {
                interned.addEventNames(EventName.newBuilder()
                        .setIid(randomLong(r))
                        .setName(randomString(r, Math.max(1, maxChars / 4))));
            }
            p.setInternedData(interned);
        }
        return p.build();
    }

    private static TrackEvent randomTrackEvent(Random r, int maxChars) {
        TrackEvent.Builder e = TrackEvent.newBuilder().setType(TrackEvent.Type.forNumber(1 + r.nextInt(5)));
        if (r.nextInt(10) < 7) {
            e.setTrackUuid(randomLong(r));
        }
        if (r.nextInt(10) < 6) {
            e.setName(randomString(r, maxChars));
        }
        for (int i = r.nextInt(6); i > 0; i--) {
            e.addCategoryIids(randomLong(r));
        }
        int counter = r.nextInt(10);
        if (counter < 2) {
            e.setCounterValue(randomLong(r));
        } else if (counter < 4) {
            e.setDoubleCounterValue(randomDouble(r));
        }
        for (int i = r.nextInt(4); i > 0; i--) {
            e.addDebugAnnotations(randomAnnotation(r, r.nextInt(3), Math.max(1, maxChars / 8)));
        }
        return e.build();
    }

    /** An annotation with a name and a value, or (when {@code depth > 0}, sometimes) nested dict entries. */
    private static DebugAnnotation randomAnnotation(Random r, int depth, int maxChars) {
        DebugAnnotation.Builder a = DebugAnnotation.newBuilder().setName(randomString(r, maxChars));
        if (depth > 0 && r.nextInt(3) != 0) {
            for (int i = 1 + r.nextInt(3); i > 0; i--) {
                a.addDictEntries(randomAnnotation(r, depth - 1, maxChars));
            }
            return a.build();
        }
        switch (r.nextInt(4)) {
            case 0:
                a.setIntValue(randomLong(r));
                break;
            case 1:
                a.setDoubleValue(randomDouble(r));
                break;
            case 2:
                a.setBoolValue(r.nextBoolean());
                break;
            default:
                a.setStringValue(randomString(r, maxChars));
                break;
        }
        if (r.nextInt(8) == 0) {
            byte[] value = new byte[r.nextInt(4 * maxChars + 1)];
            r.nextBytes(value);
            a.setProtoValue(ByteString.copyFrom(value));
        }
        return a.build();
    }

    /** Writes {@code p}'s fields (not its frame) with {@code w}, in an order of our choosing. */
    public static void writePacket(ProtoWriter w, TracePacket p) {
        if (p.hasSequenceFlags()) {
            w.varint(13, Integer.toUnsignedLong(p.getSequenceFlags()));
        }
        if (p.hasTrackEvent()) {
            w.beginNested(11);
            writeTrackEvent(w, p.getTrackEvent());
            w.endNested();
        }
        if (p.hasSynchronizationMarker()) {
            byte[] marker = p.getSynchronizationMarker().toByteArray();
            w.bytes(36, marker, 0, marker.length);
        }
        if (p.hasTimestamp()) {
            w.varint(8, p.getTimestamp());
        }
        if (p.hasInternedData()) {
            w.beginNested(12);
            for (EventName name : p.getInternedData().getEventNamesList()) {
                w.beginNested(2);
                w.varint(1, name.getIid());
                w.string(2, name.getName());
                w.endNested();
            }
            w.endNested();
        }
        if (p.hasTimestampClockId()) {
            w.varint(58, Integer.toUnsignedLong(p.getTimestampClockId()));
        }
    }

    private static void writeTrackEvent(ProtoWriter w, TrackEvent e) {
        if (e.hasName()) {
            w.string(23, e.getName());
        }
        w.varint(9, e.getType().getNumber());
        if (e.hasTrackUuid()) {
            w.varint(11, e.getTrackUuid());
        }
        for (long iid : e.getCategoryIidsList()) {
            w.varint(3, iid);
        }
        if (e.hasCounterValue()) {
            w.varint(30, e.getCounterValue());
        }
        if (e.hasDoubleCounterValue()) {
            w.doubleField(44, e.getDoubleCounterValue());
        }
        for (DebugAnnotation a : e.getDebugAnnotationsList()) {
            w.beginNested(4);
            writeAnnotation(w, a);
            w.endNested();
        }
    }

    private static void writeAnnotation(ProtoWriter w, DebugAnnotation a) {
        w.string(10, a.getName());
        switch (a.getValueCase()) {
            case INT_VALUE:
                w.varint(4, a.getIntValue());
                break;
            case DOUBLE_VALUE:
                w.doubleField(5, a.getDoubleValue());
                break;
            case BOOL_VALUE:
                w.bool(2, a.getBoolValue());
                break;
            case STRING_VALUE:
                w.string(6, a.getStringValue());
                break;
            default:
                break;
        }
        if (a.hasProtoValue()) {
            byte[] value = a.getProtoValue().toByteArray();
            w.bytes(14, value, 0, value.length);
        }
        for (DebugAnnotation entry : a.getDictEntriesList()) {
            w.beginNested(11);
            writeAnnotation(w, entry);
            w.endNested();
        }
    }

    /**
     * The bytes {@code body} writes (no frame) with a {@link ProtoWriter} into one buffer big enough for
     * all of it: the reference a fragmented write of the same fields must reproduce byte for byte.
     */
    public static byte[] encode(Consumer<ProtoWriter> body, int maxBytes) {
        ByteBuffer buf = ByteBuffer.allocate(maxBytes).order(ByteOrder.LITTLE_ENDIAN);
        ProtoWriter w = new ProtoWriter(new SpaceProvider() {
            @Override
            public void makeRoom(ProtoWriter writer, int needed) {
                throw new AssertionError("reference buffer of " + maxBytes + " bytes too small");
            }

            @Override
            public void patchSize(ProtoWriter writer, int level, int size) {
                throw new AssertionError("no fragments, no patches");
            }
        });
        w.reset(buf, 0, maxBytes);
        body.accept(w);
        return Arrays.copyOf(buf.array(), w.position());
    }

    /** {@link #encode} of {@link #writePacket}. */
    public static byte[] encode(TracePacket p) {
        return encode(w -> writePacket(w, p), 2 * p.getSerializedSize() + 64 * 5 + 64);
    }

    /** Small, large, negative and full-range values, so every varint length shows up. */
    public static long randomLong(Random r) {
        switch (r.nextInt(5)) {
            case 0:
                return r.nextInt(128);
            case 1:
                return r.nextInt();
            case 2:
                return r.nextLong();
            case 3:
                return r.nextLong() >>> r.nextInt(64);
            default:
                return -1L - r.nextInt(1000);
        }
    }

    private static final double[] SPECIAL_DOUBLES = {
        0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE, Double.MAX_VALUE, 1.0, -1.5
    };

    public static double randomDouble(Random r) {
        switch (r.nextInt(3)) {
            case 0:
                return SPECIAL_DOUBLES[r.nextInt(SPECIAL_DOUBLES.length)];
            case 1:
                return (r.nextDouble() - 0.5) * 1e9;
            default:
                return Double.longBitsToDouble(r.nextLong());
        }
    }

    /**
     * A well-formed string of up to about {@code maxChars} chars mixing 1-, 2-, 3- and 4-byte UTF-8
     * code points (4-byte ones as surrogate pairs), including NUL.
     */
    public static String randomString(Random r, int maxChars) {
        int n = r.nextInt(maxChars + 1);
        StringBuilder sb = new StringBuilder(n + 1);
        while (sb.length() < n) {
            int kind = r.nextInt(10);
            int cp;
            if (kind < 5) {
                cp = r.nextInt(0x80);
            } else if (kind < 7) {
                cp = 0x80 + r.nextInt(0x800 - 0x80);
            } else if (kind < 9) {
                do {
                    cp = 0x800 + r.nextInt(0x10000 - 0x800);
                } while (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE);
            } else {
                cp = 0x10000 + r.nextInt(Character.MAX_CODE_POINT + 1 - 0x10000);
            }
            sb.appendCodePoint(cp);
        }
        return sb.toString();
    }
}
