package io.jtrace.shm.writer;

import static io.jtrace.shm.writer.TraceWriterTest.DIV1_PAYLOAD;
import static io.jtrace.shm.writer.TraceWriterTest.flagsOf;
import static io.jtrace.shm.writer.TraceWriterTest.DIV4_PAYLOAD;
import static io.jtrace.shm.writer.TraceWriterTest.FRAGMENT_HEADER;
import static io.jtrace.shm.writer.TraceWriterTest.FRAME_OVERHEAD;
import static io.jtrace.shm.writer.TraceWriterTest.small;
import static io.jtrace.shm.writer.TraceWriterTest.withFrameSize;
import static io.jtrace.shm.writer.TraceWriterTest.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.EventName;
import io.jtrace.protos.InternedData;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.testing.ChunkFrames;
import io.jtrace.shm.testing.ChunkFrames.Copy;
import io.jtrace.shm.testing.ChunkFrames.Frame;
import io.jtrace.shm.testing.SequenceReader;
import io.jtrace.shm.testing.SmbRig;
import io.jtrace.shm.testing.SmbRigFixture;
import io.jtrace.shm.testing.TestPackets;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Packets spanning chunks as fragments: where a packet splits, the continuation flags, size fields
 * left behind and their patches, chunk-id wrap, the per-chunk packet limit and the page layouts.
 * Every sequence is read back the way the service reads it ({@link SequenceReader}).
 */
class TraceWriterFragmentTest extends SmbRigFixture {
    private static final int FIRST = ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV;
    private static final int LAST = ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT;
    private static final int PATCH = ChunkHeader.FLAG_NEEDS_PATCHING;

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** A packet holding only a synchronization marker, whose frame is exactly {@code frameBytes}. */
    private static byte[] markerForFrame(int frameBytes, Random r) {
        for (int n = frameBytes; n >= 0; n--) {
            if (FRAME_OVERHEAD + 2 + WireFormat.varintSize(n) + n == frameBytes) {
                return randomBytes(r, n);
            }
        }
        throw new AssertionError("no marker for a frame of " + frameBytes);
    }

    /** The frame of {@code small(1)} written field by field. */
    private static final int SMALL_FRAME = FRAME_OVERHEAD + small(1).getSerializedSize();

    /** A distinct packet of 2 bytes for each {@code i}, whose timestamp cycles through 1..127. */
    private static TracePacket tiny(int i) {
        return small(i % 127 + 1);
    }

    /**
     * Writes {@code p} the way a small track event is written: reserved, with a 1-byte size (7 bytes in
     * all for {@link #tiny} packets); field by field when the chunk has no room or count left for it.
     */
    private static void writeReserved(TraceWriter w, TracePacket p) {
        byte[] bytes = p.toByteArray();
        int at = w.tryReserve(bytes.length);
        if (at < 0) {
            write(w, p);
            return;
        }
        w.buffer().put(at, bytes);
        w.commitReserved(bytes.length);
    }

    private static TracePacket markerPacket(byte[] marker) {
        return TracePacket.newBuilder().setSynchronizationMarker(ByteString.copyFrom(marker)).build();
    }

    private static void writeMarker(TraceWriter w, byte[] marker) {
        ProtoWriter p = w.beginPacket();
        p.bytes(36, marker, 0, marker.length);
        w.endPacket();
    }

    // ---------------------------------------------------------------------------------------------
    // Where a packet splits

    @Test
    void packetExactlyFillingTheRestOfAChunkStaysInItWithoutContinuation() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(1);
        byte[] marker = markerForFrame(DIV4_PAYLOAD - SMALL_FRAME, r);
        write(w, small(1));
        writeMarker(w, marker);
        write(w, small(3));
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(0, 0), flagsOf(chunks), "no continuation flag on either chunk");
        assertEquals(2, chunks.get(0).packetCount());
        Frame last = chunks.get(0).frames().get(1);
        assertEquals(DIV4_PAYLOAD, last.contentOffset() + last.size(), "the packet ends exactly at the chunk's end");
        assertEquals(List.of(small(1), markerPacket(marker), small(3)),
                rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void nestedPacketExactlyFillingTheRestOfAChunkStaysInItWithoutContinuation() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        // frame header and slot + track_event tag 1 + size 4 + name tag 2 + length 2 + name
        String name = "n".repeat(DIV4_PAYLOAD - SMALL_FRAME - FRAME_OVERHEAD - 1 - 4 - 2 - 2);
        ProtoWriter p = w.beginPacket();
        p.beginNested(11);
        p.string(23, name);
        p.endNested();
        w.endPacket();
        write(w, small(3));
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(0, 0), flagsOf(chunks));
        assertEquals(List.of(2, 1), chunks.stream().map(Copy::packetCount).collect(Collectors.toList()));
        assertEquals(List.of(small(1), TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName(name)).build(),
                small(3)), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(List.of(), rig.patchesOf(w.writerId()));
    }

    @Test
    void packetOneByteOverTheRestOfAChunkSpansTwoChunksWithFlagsOnBoth() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(2);
        byte[] marker = markerForFrame(DIV4_PAYLOAD - SMALL_FRAME + 1, r);
        write(w, small(1));
        writeMarker(w, marker);
        write(w, small(3));
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(LAST, FIRST), flagsOf(chunks));
        assertEquals(List.of(2, 2), chunks.stream().map(Copy::packetCount).collect(Collectors.toList()));
        Frame head = chunks.get(0).frames().get(1);
        assertEquals(DIV4_PAYLOAD, head.contentOffset() + head.size(), "the first fragment fills the chunk");
        assertEquals(1, chunks.get(1).frames().get(0).size(), "the one byte over (the slot's last) is the second fragment");
        assertEquals(List.of(small(1), markerPacket(marker), small(3)),
                rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(0, w.droppedPackets());
    }

    static Stream<Arguments> bigPackets() {
        List<Arguments> out = new ArrayList<>();
        for (String kind : List.of("bytes", "string", "nested")) {
            for (int size : new int[] {DIV4_PAYLOAD + 1, DIV1_PAYLOAD, DIV1_PAYLOAD + 1, 3 * DIV1_PAYLOAD + 17, 64 * 1024,
                    1024 * 1024}) {
                out.add(Arguments.of(kind, size));
            }
        }
        return out.stream();
    }

    /** A packet of about {@code size} serialized bytes: one big bytes field, one big string, or many nested messages. */
    private static TracePacket bigPacket(String kind, int size, Random r) {
        TracePacket.Builder p = TracePacket.newBuilder().setTimestamp(2);
        switch (kind) {
            case "bytes":
                p.setSynchronizationMarker(ByteString.copyFrom(randomBytes(r, size)));
                break;
            case "string": {
                StringBuilder s = new StringBuilder();
                int bytes = 0;
                while (bytes < size) {
                    String piece = TestPackets.randomString(r, 64); // 1- to 4-byte code points, surrogate pairs included
                    s.append(piece);
                    bytes += WireFormat.utf8Length(piece);
                }
                p.setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT).setName(s.toString()));
                break;
            }
            default: {
                TrackEvent.Builder e = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT);
                int total = 0;
                while (total < size) {
                    DebugAnnotation.Builder a = DebugAnnotation.newBuilder().setName(TestPackets.randomString(r, 8));
                    for (int k = r.nextInt(3); k > 0; k--) {
                        a.addDictEntries(DebugAnnotation.newBuilder().setName("k" + k)
                                .setStringValue(TestPackets.randomString(r, 200))
                                .addDictEntries(DebugAnnotation.newBuilder().setName("deep").setIntValue(k)));
                    }
                    a.setProtoValue(ByteString.copyFrom(randomBytes(r, r.nextInt(500))));
                    DebugAnnotation built = a.build();
                    total += built.getSerializedSize() + 3;
                    e.addDebugAnnotations(built);
                }
                p.setTrackEvent(e);
                break;
            }
        }
        return p.build();
    }

    @ParameterizedTest(name = "{0} of {1} bytes")
    @MethodSource("bigPackets")
    void packetsLargerThanAChunkArriveWholeAndByteIdentical(String kind, int size) throws IOException {
        // 4 MiB: room for a 1 MiB packet's fragments (it is not read before it ends) with no reader.
        rig = new SmbRig(dir, 4 * 1024 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(size);
        TracePacket big = bigPacket(kind, size, r);
        write(w, small(1));
        write(w, big);
        write(w, small(3));
        rig.flush(w);
        assertEquals(0, w.droppedPackets());
        SequenceReader.Result seq = rig.sequence(w.writerId()).assertWellFormed();
        assertEquals(3, seq.packets().size());
        assertArrayEquals(TestPackets.encode(big), seq.packets().get(1), "byte-identical to an unfragmented write");
        assertEquals(List.of(small(1), big, small(3)), seq.timeline());
        int chunks = rig.chunksOf(w.writerId()).size();
        assertTrue(chunks >= 2 && chunks >= size / DIV1_PAYLOAD, chunks + " chunks");
    }

    // ---------------------------------------------------------------------------------------------
    // Size fields left behind and their patches

    /**
     * A track event (level 1) with one annotation (level 2), both opened near the end of chunk 0; the
     * annotation's content then runs on through {@code spanned} more chunks. Both size fields stay in
     * chunk 0 and must arrive as exactly two patches.
     */
    @ParameterizedTest(name = "content spanning {0} more chunks")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void sizeFieldsLeftBehindArriveAsExactlyTheRightPatches(int spanned) throws IOException {
        rig = new SmbRig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(spanned);
        int start = DIV4_PAYLOAD - 100;
        TracePacket filler = withFrameSize(1, start, r);
        // Our packet's layout in chunk 0's payload: frame tag at start and size at +1, timestamp (2 bytes)
        // at +5, track_event tag at +7 and size field at +8, annotation tag at +12 and size field at +13,
        // name at +17 (3 bytes), proto_value tag at +20. Each continuation chunk (DIV1) carries a frame
        // header and 4075 content bytes.
        int eventSizeField = start + 8;
        int annotationSizeField = start + 13;
        int room = DIV1_PAYLOAD - FRAGMENT_HEADER;
        int valueLength = 20;
        if (spanned > 0) {
            int after = (spanned - 1) * room + room / 2; // content bytes beyond chunk 0
            for (int lengthBytes = 1; lengthBytes <= 3; lengthBytes++) {
                int length = DIV4_PAYLOAD - (start + 21 + lengthBytes) + after;
                if (WireFormat.varintSize(length) == lengthBytes) {
                    valueLength = length;
                }
            }
        }
        byte[] value = randomBytes(r, valueLength);
        write(w, filler);
        ProtoWriter p = w.beginPacket();
        p.varint(8, 2);
        p.beginNested(11);
        p.beginNested(4);
        p.string(10, "n");
        p.bytes(14, value, 0, value.length);
        int annotationSize = p.endNested();
        int eventSize = p.endNested();
        w.endPacket();
        w.flush();
        write(w, small(3)); // in a chunk of its own
        rig.flush(w);

        DebugAnnotation annotation = DebugAnnotation.newBuilder().setName("n").setProtoValue(ByteString.copyFrom(value)).build();
        assertEquals(annotation.getSerializedSize(), annotationSize);
        assertEquals(1 + 4 + annotationSize, eventSize);
        TracePacket expected = TracePacket.newBuilder().setTimestamp(2)
                .setTrackEvent(TrackEvent.newBuilder().addDebugAnnotations(annotation)).build();

        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(spanned + 2, chunks.size(), "the packet's chunks, then small(3)'s");
        List<Integer> expectedFlags = new ArrayList<>();
        for (int i = 0; i <= spanned; i++) {
            int flags = (i > 0 ? FIRST : 0) | (i < spanned ? LAST : 0);
            expectedFlags.add(i == 0 && spanned > 0 ? flags | PATCH : flags);
        }
        expectedFlags.add(0);
        assertEquals(expectedFlags, flagsOf(chunks), "only the chunk holding the size fields needs patching");
        List<CommitRequest.Patch> expectedPatches = spanned == 0 ? List.of() : List.of(
                new CommitRequest.Patch(w.writerId(), 0, annotationSizeField, WireFormat.redundantVarint(annotationSize), true),
                new CommitRequest.Patch(w.writerId(), 0, eventSizeField, WireFormat.redundantVarint(eventSize), false));
        assertEquals(expectedPatches, rig.patchesOf(w.writerId()));
        assertEquals(List.of(filler, expected, small(3)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void patchAtTheEarliestOffsetOfAChunkPayload() throws IOException {
        // Offsets 0..4 of a payload always hold its first frame's tag and size and offset 5 a field's
        // tag, so the first size field a patch can target is at 6: here once in the writer's first chunk
        // and once right after the frame of a continuation chunk.
        rig = new SmbRig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        String first = "a".repeat(3 * DIV4_PAYLOAD);
        ProtoWriter p = w.beginPacket();
        p.beginNested(11); // size field at offset 6 of chunk 0
        p.string(23, first);
        p.endNested();
        w.endPacket();
        w.flush();

        // A packet starts at least 64 bytes before the chunk's end; padding inside it (interned data)
        // leaves exactly 4 bytes, one short of a tag and a size field.
        int start = DIV4_PAYLOAD - 100;
        TracePacket filler = withFrameSize(1, start, new Random(5));
        write(w, filler);
        // frame 5, timestamp 2, interned_data tag 1 + size 4, event_names tag 1 + size 4, iid 2, name tag 1 + length 1
        String pad = "p".repeat(100 - 4 - 21);
        String second = "b".repeat(2 * DIV1_PAYLOAD);
        p = w.beginPacket();
        p.varint(8, 2);
        p.beginNested(12);
        p.beginNested(2);
        p.varint(1, 1);
        p.string(2, pad);
        p.endNested();
        p.endNested();
        p.beginNested(11); // continues first: size field at offset 6 of the next chunk
        p.string(23, second);
        p.endNested();
        w.endPacket();
        rig.flush(w);
        TracePacket secondPacket = TracePacket.newBuilder().setTimestamp(2)
                .setInternedData(InternedData.newBuilder().addEventNames(EventName.newBuilder().setIid(1).setName(pad)))
                .setTrackEvent(TrackEvent.newBuilder().setName(second)).build();

        List<CommitRequest.Patch> patches = rig.patchesOf(w.writerId());
        assertEquals(2, patches.size(), patches.toString());
        assertEquals(0, patches.get(0).chunkId());
        assertEquals(FRAGMENT_HEADER + 1, patches.get(0).offset());
        int fillerChunk = rig.chunksOf(w.writerId()).stream().filter(c -> c.packetCount() == 2 && c.hasFlag(LAST))
                .findFirst().orElseThrow().chunkId();
        assertEquals(fillerChunk + 1, patches.get(1).chunkId(), "the continuation chunk");
        assertEquals(FRAGMENT_HEADER + 1, patches.get(1).offset());
        assertTrue(!patches.get(0).hasMorePatches() && !patches.get(1).hasMorePatches());
        assertEquals(List.of(
                TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName(first)).build(),
                filler,
                secondPacket),
                rig.sequence(w.writerId()).assertWellFormed().timeline());
        Copy head = rig.chunksOf(w.writerId()).stream().filter(c -> c.chunkId() == fillerChunk).findFirst().orElseThrow();
        Frame headFragment = head.frames().get(1);
        assertEquals(DIV4_PAYLOAD - 4, headFragment.contentOffset() + headFragment.size(), "4 bytes were left unused");
    }

    @Test
    void patchAtTheLastFourBytesOfAChunkPayload() throws IOException {
        rig = new SmbRig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        int start = DIV4_PAYLOAD - 100;
        TracePacket filler = withFrameSize(1, start, new Random(6));
        write(w, filler);
        // frame 5, timestamp 2, track_event tag 1 + size 4 (at start + 8), name tag 2 + length 1 + pad,
        // then an annotation's tag 1 and size field 4 ending exactly at the chunk's end.
        String pad = "p".repeat(100 - 5 - 2 - 5 - 3 - 5);
        String name = "z".repeat(500);
        ProtoWriter p = w.beginPacket();
        p.varint(8, 2);
        p.beginNested(11);
        p.string(23, pad);
        p.beginNested(4);
        p.string(10, name);
        int annotationSize = p.endNested();
        int eventSize = p.endNested();
        w.endPacket();
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(LAST | PATCH, FIRST), flagsOf(chunks));
        assertEquals(List.of(
                new CommitRequest.Patch(w.writerId(), 0, DIV4_PAYLOAD - 4, WireFormat.redundantVarint(annotationSize), true),
                new CommitRequest.Patch(w.writerId(), 0, start + 8, WireFormat.redundantVarint(eventSize), false)),
                rig.patchesOf(w.writerId()));
        assertEquals(FRAGMENT_HEADER, chunks.get(1).frames().get(0).contentOffset(), "the annotation's content opens the next chunk");
        assertEquals(List.of(filler, TracePacket.newBuilder().setTimestamp(2).setTrackEvent(TrackEvent.newBuilder().setName(pad)
                .addDebugAnnotations(DebugAnnotation.newBuilder().setName(name))).build()),
                rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void sizeFieldsLeftInManyChunksEachGetTheirPatchesAndTheLastPatchOfEachChunkSaysSo() throws IOException {
        rig = new SmbRig(dir, 512 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(8);
        int levels = 9;
        String[] values = new String[levels];
        for (int i = 0; i < levels; i++) {
            values[i] = TestPackets.randomString(r, 3000) + "x".repeat(3000);
        }
        ProtoWriter p = w.beginPacket();
        p.varint(8, 1);
        p.beginNested(11);
        p.beginNested(4);
        for (int i = 0; i < levels; i++) {
            p.string(10, "level" + i);
            p.string(6, values[i]); // a chunk or two, so the next level opens in another chunk
            if (i < levels - 1) {
                p.beginNested(11);
            }
        }
        while (p.depth() > 1) {
            p.endNested();
        }
        w.endPacket();
        rig.flush(w);

        DebugAnnotation a = DebugAnnotation.newBuilder().setName("level" + (levels - 1)).setStringValue(values[levels - 1]).build();
        for (int i = levels - 2; i >= 0; i--) {
            a = DebugAnnotation.newBuilder().setName("level" + i).setStringValue(values[i]).addDictEntries(a).build();
        }
        TracePacket expected = TracePacket.newBuilder().setTimestamp(1)
                .setTrackEvent(TrackEvent.newBuilder().addDebugAnnotations(a)).build();

        List<Copy> chunks = rig.chunksOf(w.writerId());
        List<CommitRequest.Patch> patches = rig.patchesOf(w.writerId());
        assertEquals(levels + 1, patches.size(), "every size field but the frame's was left behind");
        Map<Integer, List<CommitRequest.Patch>> byChunk = new HashMap<>();
        for (CommitRequest.Patch patch : patches) {
            byChunk.computeIfAbsent(patch.chunkId(), k -> new ArrayList<>()).add(patch);
        }
        assertTrue(byChunk.size() >= 5, "size fields in many chunks: " + byChunk.keySet());
        for (Copy c : chunks) {
            List<CommitRequest.Patch> own = byChunk.getOrDefault(c.chunkId(), List.of());
            assertEquals(!own.isEmpty(), c.hasFlag(PATCH), "chunk " + c.chunkId() + " needs patching iff it gets patches");
            for (int i = 0; i < own.size(); i++) {
                assertEquals(i < own.size() - 1, own.get(i).hasMorePatches(), "chunk " + c.chunkId() + " patch " + i);
            }
        }
        assertEquals(List.of(expected), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void withoutItsPatchesAPacketWithSizeFieldsLeftBehindDoesNotReadBack() throws IOException {
        // Guards the patch tests: the patches really carry the sizes (the SMB holds no valid size there).
        rig = new SmbRig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        ProtoWriter p = w.beginPacket();
        p.beginNested(11);
        p.string(23, "q".repeat(2 * DIV4_PAYLOAD));
        p.endNested();
        w.endPacket();
        rig.flush(w);
        assertEquals(1, rig.patchesOf(w.writerId()).size());
        SequenceReader.Result unpatched = SequenceReader.read(rig.chunksOf(w.writerId()), List.of());
        assertEquals(List.of("chunk 0 still needs patching"), unpatched.anomalies());
        assertTrue(unpatched.packets().size() == 1
                && !TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName("q".repeat(2 * DIV4_PAYLOAD))).build()
                        .toByteString().equals(ByteString.copyFrom(unpatched.packets().get(0))));
    }

    // ---------------------------------------------------------------------------------------------
    // Chunk ids, packet counts, layouts

    @Test
    void chunkIdsWrapAt2To32WithAPacketSpanningTheWrap() throws IOException {
        rig = new SmbRig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP, 0xFFFFFFFE);
        Random r = new Random(9);
        write(w, small(1));
        w.flush(); // chunk 0xFFFFFFFE
        write(w, small(2));
        TracePacket spanning = TracePacket.newBuilder().setTimestamp(3).setTrackEvent(TrackEvent.newBuilder()
                .setType(TrackEvent.Type.TYPE_INSTANT).addDebugAnnotations(DebugAnnotation.newBuilder().setName("wrap")
                        .setProtoValue(ByteString.copyFrom(randomBytes(r, DIV4_PAYLOAD + 500))))).build();
        write(w, spanning); // from 0xFFFFFFFF into 0
        write(w, small(4));
        w.flush();
        write(w, small(5)); // chunk 1
        rig.flush(w);
        assertEquals(List.of(0xFFFFFFFE, 0xFFFFFFFF, 0, 1), rig.chunkIdsOf(w.writerId()));
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(0, LAST | PATCH, FIRST, 0), flagsOf(chunks));
        List<CommitRequest.Patch> patches = rig.patchesOf(w.writerId());
        assertEquals(List.of(0xFFFFFFFF, 0xFFFFFFFF), patches.stream().map(CommitRequest.Patch::chunkId).collect(Collectors.toList()));
        assertEquals(List.of(small(1), small(2), spanning, small(4), small(5)),
                rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void noChunkHoldsMoreThan1023PacketsAndThe1024thStartsTheNextChunk() throws IOException {
        // 32 KiB pages: a writer that filled its first (small) chunk takes whole pages, which have room for
        // more than 1023 tiny reserved packets, so the count limit binds there.
        rig = new SmbRig(dir, 8 * 32 * 1024, 32 * 1024);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        List<TracePacket> expected = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            TracePacket p = tiny(i);
            writeReserved(w, p);
            expected.add(p);
        }
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertSame(ChunkArbiter.defaultLayout(32 * 1024), chunks.get(0).layout(), "the first chunk");
        int first = chunks.get(0).packetCount();
        assertTrue(first < 1023, "a first chunk too small for the count limit: " + first);
        assertEquals(List.of(first, 1023, 1023, 3000 - first - 2 * 1023),
                chunks.stream().map(Copy::packetCount).collect(Collectors.toList()));
        assertEquals(List.of(PageLayout.DIV1, PageLayout.DIV1, PageLayout.DIV1),
                chunks.subList(1, 4).stream().map(Copy::layout).collect(Collectors.toList()));
        assertEquals(List.of(0, 1, 2, 3), rig.chunkIdsOf(w.writerId()));
        assertEquals(List.of(0, 0, 0, 0), flagsOf(chunks));
        assertEquals(tiny(first + 1023), TracePacket.parseFrom(ChunkFrames.withoutSequenceIdSlot(
                chunks.get(2).frameBytes(chunks.get(2).frames().get(0)))), "the 1024th packet opens the next chunk");
        assertEquals(expected, rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void aFragmentCountsAsOneOfTheChunks1023Packets() throws IOException {
        rig = new SmbRig(dir, 256 * 1024, 32 * 1024);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(10);
        List<Object> expected = new ArrayList<>();
        // Larger than a first chunk: it continues in a whole page (32 KiB), where its last fragment is the
        // first of the chunk's packets.
        TracePacket opener = TraceWriterTest.withMarker(4000, 3000, r);
        write(w, opener);
        expected.add(opener);
        for (int i = 0; i < 1021; i++) {
            writeReserved(w, tiny(i));
            expected.add(tiny(i));
        }
        // The opener's rest and 1021 seven-byte frames leave about 24 KiB of the page: this packet spans.
        TracePacket big = TraceWriterTest.withMarker(5000, 30000, r);
        write(w, big);
        expected.add(big);
        for (int i = 0; i < 1030; i++) {
            writeReserved(w, tiny(i));
            expected.add(tiny(i));
        }
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(PageLayout.DIV1, chunks.get(1).layout());
        assertEquals(1023, chunks.get(1).packetCount(), "the opener's last fragment, 1021 packets and the first fragment");
        assertEquals(List.of(LAST, FIRST | LAST, FIRST), flagsOf(chunks).subList(0, 3));
        assertTrue(chunks.stream().allMatch(c -> c.packetCount() <= ChunkHeader.MAX_PACKETS));
        assertEquals(1023, chunks.get(2).packetCount(), "the last fragment and 1022 packets");
        assertEquals(expected, rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @ParameterizedTest(name = "{0}-byte pages")
    @ValueSource(ints = {4096, 8192, 16384, 32768})
    void writersWorkOnEveryPageSizeAndContinueInLargerChunks(int pageSize) throws IOException {
        rig = new SmbRig(dir, 64 * pageSize, pageSize);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(pageSize);
        List<TracePacket> expected = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            TracePacket p = r.nextInt(10) == 0
                    ? TraceWriterTest.withMarker(i, r.nextInt(3 * pageSize), r)
                    : TestPackets.randomPacket(r, i, 100, pageSize / 4);
            write(w, p);
            expected.add(p);
            if (i % 10 == 9) {
                rig.flushAndReadCommitted(w);
            }
        }
        rig.flush(w);
        assertEquals(expected, rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(0, w.droppedPackets());
        List<Copy> chunks = rig.chunksOf(w.writerId());
        for (Copy c : chunks) {
            assertEquals(c.layout().chunkSize(pageSize) - ChunkHeader.SIZE, c.payload().length);
            assertTrue(c.layout() == ChunkArbiter.defaultLayout(pageSize) || c.layout() == PageLayout.DIV1, c.toString());
        }
        boolean switched = false;
        for (int i = 1; i < chunks.size(); i++) {
            switched |= chunks.get(i).hasFlag(FIRST) && chunks.get(i - 1).layout() == ChunkArbiter.defaultLayout(pageSize)
                    && chunks.get(i).layout() == PageLayout.DIV1;
        }
        assertTrue(switched, "a packet begun in a first-size chunk continued in a DIV1 chunk");
    }

    @Test
    void continuationTakesAnyFreeChunkWhenNoWholePageIsFree() throws IOException {
        rig = new SmbRig(dir, 16 * 4096, 4096);
        // Keep one chunk of every page busy: every page stays laid out DIV4 with three free chunks.
        List<Integer> stolen = rig.stealAllChunks();
        List<Integer> keep = new ArrayList<>();
        List<Integer> giveBack = new ArrayList<>();
        for (int h : stolen) {
            (ChunkArbiter.indexOf(h) == 0 ? keep : giveBack).add(h);
        }
        assertEquals(16, keep.size());
        rig.giveBack(giveBack);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TracePacket big = TraceWriterTest.withMarker(1, 5 * DIV4_PAYLOAD, new Random(11));
        write(w, small(0));
        write(w, big);
        write(w, small(2));
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertTrue(chunks.size() >= 6);
        assertTrue(chunks.stream().allMatch(c -> c.layout() == PageLayout.DIV4), "only DIV4 chunks were free");
        assertEquals(List.of(small(0), big, small(2)), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(0, w.droppedPackets());
        rig.readCommitted();
        rig.giveBack(keep);
    }

    /**
     * A writer keeps its chunk while it idles, so only a quarter of the pages go to writers as whole
     * pages: threads that were each busy once cannot pin the SMB. The others go on in small chunks and
     * lose nothing, and a page handed over lets the next writer that fills a chunk take one.
     */
    @Test
    void onlyAQuarterOfThePagesAreHeldWholeByWritersThatFilledAChunk() throws IOException {
        int pageSize = 16 * 1024;
        rig = new SmbRig(dir, 32 * pageSize, pageSize, true);
        int limit = 32 / 4;
        List<TraceWriter> writers = new ArrayList<>();
        List<List<TracePacket>> expected = new ArrayList<>();
        for (int w = 0; w < 20; w++) {
            TraceWriter writer = new TraceWriter(rig.arbiter, 0);
            List<TracePacket> written = new ArrayList<>();
            // More than a first chunk holds: the writer fills it and asks for a whole page next.
            for (int i = 0; i < 400; i++) {
                writeReserved(writer, tiny(i));
                written.add(tiny(i));
            }
            writers.add(writer);
            expected.add(written);
        }
        assertEquals(limit, rig.arbiter.pageChunksHeld());
        assertEquals(limit, wholePagesBeingWritten());

        TraceWriter holder = writers.get(0);
        rig.flush(holder);
        assertEquals(limit - 1, rig.arbiter.pageChunksHeld(), "a page handed over gives its place back");
        TraceWriter next = writers.get(19);
        for (int i = 400; i < 800; i++) {
            writeReserved(next, tiny(i));
            expected.get(19).add(tiny(i));
        }
        assertEquals(limit, rig.arbiter.pageChunksHeld(), "the next writer that filled a chunk took the place");
        assertEquals(limit, wholePagesBeingWritten());

        rig.flush(writers.toArray(new TraceWriter[0]));
        assertEquals(0, rig.arbiter.pageChunksHeld());
        for (int w = 0; w < writers.size(); w++) {
            assertEquals(0, writers.get(w).droppedPackets());
            assertEquals(expected.get(w), rig.sequence(writers.get(w).writerId()).assertWellFormed().timeline());
        }
    }

    private int wholePagesBeingWritten() {
        int pages = 0;
        for (int page = 0; page < rig.abi.pageCount(); page++) {
            if (PageHeader.layout(rig.abi.pageBitmap(page)) == PageLayout.DIV1
                    && rig.abi.chunkState(page, 0) == ChunkState.BEING_WRITTEN) {
                pages++;
            }
        }
        return pages;
    }
}
