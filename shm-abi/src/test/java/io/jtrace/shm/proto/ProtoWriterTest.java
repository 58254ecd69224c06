package io.jtrace.shm.proto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedOutputStream;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.testing.ChunkFrames;
import io.jtrace.shm.testing.TestPackets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class ProtoWriterTest {
    static final SpaceProvider NO_MORE_SPACE = new SpaceProvider() {
        @Override
        public void makeRoom(ProtoWriter writer, int needed) {
            throw new AssertionError("makeRoom(" + needed + ") called on a buffer that was big enough");
        }

        @Override
        public void patchSize(ProtoWriter writer, int level, int size) {
            throw new AssertionError("patchSize(" + level + ", " + size + ") without fragments");
        }
    };

    private static ByteBuffer heap(int capacity) {
        return ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** A writer over all of {@code buf}, which must be big enough: it gets no more space. */
    static ProtoWriter writerOver(ByteBuffer buf) {
        ProtoWriter w = new ProtoWriter(NO_MORE_SPACE);
        w.reset(buf, 0, buf.capacity());
        return w;
    }

    /** The bytes {@code body} writes at the start of a fresh, big-enough buffer (no frame). */
    private static byte[] written(Consumer<ProtoWriter> body) {
        ByteBuffer buf = heap(1 << 16);
        ProtoWriter w = writerOver(buf);
        body.accept(w);
        return Arrays.copyOf(buf.array(), w.position());
    }

    interface CodedBody {
        void write(CodedOutputStream out) throws IOException;
    }

    /** What protobuf-java's own encoder writes for the same fields. */
    private static byte[] coded(CodedBody body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            body.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Writes {@code p} as one frame at offset {@code at} and returns the frame's content, checking the size field. */
    private static byte[] writeFrame(ProtoWriter w, ByteBuffer buf, int at, TracePacket p) {
        w.reset(buf, at, buf.capacity());
        w.beginFrame();
        TestPackets.writePacket(w, p);
        int size = w.endNested();
        assertEquals(0, w.depth());
        assertEquals(at + WireFormat.RESERVED_SIZE_BYTES + size, w.position());
        assertEquals(size, WireFormat.decodeRedundantVarint(buf.getInt(at)));
        byte[] content = new byte[size];
        buf.get(at + WireFormat.RESERVED_SIZE_BYTES, content);
        return content;
    }

    @Test
    void randomPacketsParseBackEqualToTheSameMessageBuiltWithProtobuf() {
        Random r = new Random(20240601);
        ByteBuffer buf = heap(1 << 20);
        ProtoWriter w = new ProtoWriter(NO_MORE_SPACE);
        for (int i = 0; i < 5000; i++) {
            TracePacket expected = TestPackets.randomPacket(r, r.nextLong(), 1 + r.nextInt(200), 3000);
            int at = r.nextInt(64);
            byte[] content = writeFrame(w, buf, at, expected);
            assertEquals(expected, ChunkFrames.parse(content), "packet " + i);
        }
    }

    @Test
    void randomPacketsAreReallyVaried() {
        // Guards the test above against a generator that stopped producing the interesting fields.
        Random r = new Random(20240601);
        int events = 0;
        int nestedDicts = 0;
        int interned = 0;
        int doubles = 0;
        int nonBmp = 0;
        for (int i = 0; i < 5000; i++) {
            TracePacket p = TestPackets.randomPacket(r, r.nextLong(), 1 + r.nextInt(200), 3000);
            if (p.hasTrackEvent()) {
                events++;
                TrackEvent e = p.getTrackEvent();
                doubles += e.hasDoubleCounterValue() ? 1 : 0;
                nonBmp += e.getName().codePoints().anyMatch(Character::isSupplementaryCodePoint) ? 1 : 0;
                for (DebugAnnotation a : e.getDebugAnnotationsList()) {
                    for (DebugAnnotation entry : a.getDictEntriesList()) {
                        nestedDicts += entry.getDictEntriesCount() > 0 ? 1 : 0;
                    }
                }
            }
            interned += p.hasInternedData() ? 1 : 0;
        }
        assertTrue(events > 3000 && nestedDicts > 100 && interned > 1000 && doubles > 500 && nonBmp > 500,
                events + " " + nestedDicts + " " + interned + " " + doubles + " " + nonBmp);
    }

    @Test
    void nestedMessageSizeFieldIsAFourByteRedundantVarintOfItsLength() {
        ByteBuffer buf = heap(256);
        ProtoWriter w = writerOver(buf);
        w.beginNested(11);
        assertEquals(1, w.depth());
        assertEquals(1, w.sizeFieldOffset(0), "after the 1-byte tag");
        w.varint(9, 3);
        assertEquals(2, w.endNested());
        byte[] expected = {(byte) (11 << 3 | 2), (byte) 0x82, (byte) 0x80, (byte) 0x80, 0x00, 9 << 3, 3};
        assertArrayEquals(expected, Arrays.copyOf(buf.array(), w.position()));
    }

    @Test
    void endNestedReturnsTheSizeOfTheInnermostMessage() {
        ByteBuffer buf = heap(256);
        ProtoWriter w = writerOver(buf);
        w.beginFrame();
        w.beginNested(11);
        w.string(23, "abc"); // 2-byte tag, 1-byte length, 3 bytes
        assertEquals(6, w.endNested());
        assertEquals(1 + 4 + 6, w.endNested());
    }

    @Test
    void varintsMatchProtobufByteForByte() {
        Random r = new Random(6);
        for (int i = 0; i < 10_000; i++) {
            int field = 1 + r.nextInt((1 << 28) - 1);
            long v = TestPackets.randomLong(r);
            assertArrayEquals(coded(out -> out.writeUInt64(field, v)), written(w -> w.varint(field, v)),
                    "field " + field + " value " + v);
        }
    }

    @Test
    void tagsOfTheLargestFieldNumbersMatchProtobuf() {
        int field = (1 << 29) - 1; // the largest legal field number: its tag does not fit in a signed int
        assertArrayEquals(coded(out -> out.writeUInt64(field, 1)), written(w -> w.varint(field, 1)));
        assertArrayEquals(coded(out -> out.writeFixed32(field, 1)), written(w -> w.fixed32(field, 1)));
    }

    @Test
    void sint64MatchesProtobufZigZagEncoding() {
        long[] edges = {0, 1, -1, 2, -2, 63, -64, 64, -65, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MIN_VALUE};
        for (long v : edges) {
            assertArrayEquals(coded(out -> out.writeSInt64(7, v)), written(w -> w.sint64(7, v)), "value " + v);
        }
        Random r = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            long v = TestPackets.randomLong(r);
            assertArrayEquals(coded(out -> out.writeSInt64(7, v)), written(w -> w.sint64(7, v)), "value " + v);
        }
    }

    @Test
    void fixed32AndFixed64MatchProtobuf() {
        Random r = new Random(8);
        for (int i = 0; i < 10_000; i++) {
            int v32 = r.nextInt();
            long v64 = r.nextLong();
            int field = 1 + r.nextInt(5000);
            assertArrayEquals(coded(out -> out.writeFixed32(field, v32)), written(w -> w.fixed32(field, v32)));
            assertArrayEquals(coded(out -> out.writeFixed64(field, v64)), written(w -> w.fixed64(field, v64)));
        }
    }

    @Test
    void doubleAndBoolMatchProtobuf() {
        Random r = new Random(9);
        for (int i = 0; i < 10_000; i++) {
            double d = TestPackets.randomDouble(r);
            boolean b = r.nextBoolean();
            assertArrayEquals(coded(out -> out.writeDouble(5, d)), written(w -> w.doubleField(5, d)));
            assertArrayEquals(coded(out -> out.writeBool(2, b)), written(w -> w.bool(2, b)));
        }
    }

    @Test
    void bytesWritesOnlyTheGivenSliceAndMatchesProtobuf() {
        Random r = new Random(10);
        for (int i = 0; i < 2000; i++) {
            byte[] data = new byte[r.nextInt(400)];
            r.nextBytes(data);
            int offset = data.length == 0 ? 0 : r.nextInt(data.length);
            int length = r.nextInt(data.length - offset + 1);
            assertArrayEquals(coded(out -> out.writeByteArray(36, data, offset, length)),
                    written(w -> w.bytes(36, data, offset, length)));
        }
    }

    @Test
    void stringsMatchProtobufForRandomUnicode() {
        Random r = new Random(11);
        for (int i = 0; i < 10_000; i++) {
            String s = TestPackets.randomString(r, 300);
            assertArrayEquals(coded(out -> out.writeString(23, s)), written(w -> w.string(23, s)), s);
        }
    }

    @Test
    void unpairedSurrogatesAreWrittenAsQuestionMarks() {
        String s = "a\uD83Db\uDE00\uD83D\uDE00\uDBFF";
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(coded(out -> out.writeByteArray(23, utf8)), written(w -> w.string(23, s)));
        assertArrayEquals(coded(out -> out.writeByteArray(23, utf8)),
                written(w -> w.string(23, new StringBuilder(s))), "any CharSequence");
    }

    @Test
    void rawAppendsEncodedBytesVerbatim() {
        DebugAnnotation annotation = DebugAnnotation.newBuilder().setName("n").setIntValue(-5).build();
        byte[] field = coded(out -> out.writeMessage(4, annotation));
        byte[] padded = new byte[field.length + 6];
        System.arraycopy(field, 0, padded, 3, field.length);
        assertArrayEquals(field, written(w -> w.raw(padded, 3, field.length)));

        ByteBuffer buf = heap(256);
        ProtoWriter w = writerOver(buf);
        w.beginFrame();
        w.beginNested(11);
        w.raw(padded, 3, field.length);
        w.endNested();
        int size = w.endNested();
        byte[] content = Arrays.copyOfRange(buf.array(), 4, 4 + size);
        assertEquals(TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().addDebugAnnotations(annotation)).build(),
                ChunkFrames.parse(content));
    }

    @Test
    void resetRejectsABigEndianBuffer() {
        ProtoWriter w = new ProtoWriter(NO_MORE_SPACE);
        assertThrows(IllegalArgumentException.class, () -> w.reset(ByteBuffer.allocate(64), 0, 64));
    }

    /** Frame + track_event + debug annotation + dict entries down to {@code levels} open messages in all. */
    private static TracePacket chainOfAnnotations(int levels) {
        DebugAnnotation a = DebugAnnotation.newBuilder().setName("leaf").setIntValue(levels).build();
        for (int i = 0; i < levels - 3; i++) {
            a = DebugAnnotation.newBuilder().setName("d" + i).addDictEntries(a).build();
        }
        return TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().addDebugAnnotations(a)).build();
    }

    @Test
    void nestingUpToMaxNestingWorks() {
        ByteBuffer buf = heap(4096);
        ProtoWriter w = writerOver(buf);
        w.beginFrame();
        w.beginNested(11);
        w.beginNested(4);
        for (int i = ProtoWriter.MAX_NESTING - 3 - 1; i >= 0; i--) {
            w.string(10, "d" + i);
            w.beginNested(11);
        }
        assertEquals(ProtoWriter.MAX_NESTING, w.depth());
        w.string(10, "leaf");
        w.varint(4, ProtoWriter.MAX_NESTING);
        while (w.depth() > 1) {
            w.endNested();
        }
        int size = w.endNested();
        TracePacket parsed = ChunkFrames.parse(Arrays.copyOfRange(buf.array(), 4, 4 + size));
        assertEquals(chainOfAnnotations(ProtoWriter.MAX_NESTING), parsed);
    }

    @Test
    void nestingDeeperThanMaxNestingThrows() {
        ByteBuffer buf = heap(4096);
        ProtoWriter w = writerOver(buf);
        w.beginFrame();
        for (int i = 1; i < ProtoWriter.MAX_NESTING; i++) {
            w.beginNested(11);
        }
        assertEquals(ProtoWriter.MAX_NESTING, w.depth());
        assertThrows(IllegalStateException.class, () -> w.beginNested(11));
        assertThrows(IllegalStateException.class, w::beginFrame);
    }

    @Test
    void resetForgetsOpenMessages() {
        ByteBuffer buf = heap(256);
        ProtoWriter w = writerOver(buf);
        w.beginFrame();
        w.beginNested(11);
        w.reset(buf, 10, 100);
        assertEquals(0, w.depth());
        assertEquals(10, w.position());
        assertEquals(100, w.limit());
    }

    @Test
    void discardIntoSendsTheRestOfThePacketToScratch() {
        ByteBuffer buf = heap(128);
        ProtoWriter w = writerOver(buf);
        w.beginFrame();
        w.beginNested(11);
        w.varint(9, 1);
        byte[] before = buf.array().clone();
        ByteBuffer scratch = heap(256);
        w.discardInto(scratch);
        assertEquals(2, w.depth());
        w.bytes(36, new byte[200], 0, 200);
        w.endNested();
        w.endNested();
        assertArrayEquals(before, buf.array(), "the original buffer is left alone");
        assertSame(scratch, w.buffer());
    }
}
