package io.jtrace.shm.writer;

import static io.jtrace.shm.testing.SequenceReader.LOSS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.Trace;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.testing.ChunkFrames;
import io.jtrace.shm.testing.ChunkFrames.Chunk;
import io.jtrace.shm.testing.ChunkFrames.Copy;
import io.jtrace.shm.testing.SequenceReader;
import io.jtrace.shm.testing.SmbRig;
import io.jtrace.shm.testing.SmbRigFixture;
import io.jtrace.shm.testing.TestPackets;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** TraceWriter basics: packets in order, chunk ids, writer ids, the packet protocol, aborts. */
class TraceWriterTest extends SmbRigFixture {
    /** Payload bytes of a DIV4 / DIV1 chunk on a 4 KiB page (chunk size minus its 8-byte header). */
    static final int DIV4_PAYLOAD = PageLayout.DIV4.chunkSize(4096) - ChunkHeader.SIZE;
    static final int DIV1_PAYLOAD = PageLayout.DIV1.chunkSize(4096) - ChunkHeader.SIZE;
    /** A fragment's frame header in a chunk: the Trace.packet tag and a 4-byte size. */
    static final int FRAGMENT_HEADER = 1 + WireFormat.RESERVED_SIZE_BYTES;
    /** What a whole packet written field by field takes in a chunk besides its bytes: frame header and sequence id slot. */
    static final int FRAME_OVERHEAD = FRAGMENT_HEADER + WireFormat.SEQUENCE_ID_SLOT_BYTES;

    static void write(TraceWriter w, TracePacket p) {
        ProtoWriter proto = w.beginPacket();
        TestPackets.writePacket(proto, p);
        w.endPacket();
    }

    static TracePacket small(long ts) {
        return TracePacket.newBuilder().setTimestamp(ts).build();
    }

    /** A packet of timestamp + a random {@code n}-byte synchronization marker. */
    static TracePacket withMarker(long ts, int n, Random r) {
        byte[] marker = new byte[n];
        r.nextBytes(marker);
        return TracePacket.newBuilder().setTimestamp(ts).setSynchronizationMarker(ByteString.copyFrom(marker)).build();
    }

    /** A packet of timestamp + marker whose frame ([tag][4-byte size][packet][slot]) is exactly {@code frameBytes}. */
    static TracePacket withFrameSize(long ts, int frameBytes, Random r) {
        for (int n = frameBytes; n >= 0; n--) {
            TracePacket p = withMarker(ts, n, r);
            if (FRAME_OVERHEAD + p.getSerializedSize() == frameBytes) {
                return p;
            }
        }
        throw new AssertionError("no packet with a frame of " + frameBytes);
    }

    static List<Integer> range(int n) {
        return IntStream.range(0, n).boxed().collect(Collectors.toList());
    }

    /** Each chunk's flags but {@link ChunkHeader#FLAG_FILE_FRAMED}, in order; asserts every chunk has that one. */
    static List<Integer> flagsOf(List<Copy> chunks) {
        for (Copy c : chunks) {
            assertTrue(c.hasFlag(ChunkHeader.FLAG_FILE_FRAMED), c + " is not file-framed");
        }
        return chunks.stream().map(c -> c.flags() & ~ChunkHeader.FLAG_FILE_FRAMED).collect(Collectors.toList());
    }

    @Test
    void randomPacketsAreReadBackExactlyOnceInOrderAndEqual() throws IOException {
        // 64 pages: even if each of the up to 50 packets between two reads took a page or two of its own,
        // the SMB never fills, so nothing may be dropped.
        rig = new SmbRig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 7);
        Random r = new Random(42);
        List<TracePacket> expected = new ArrayList<>();
        int untilFlush = 1 + r.nextInt(30);
        for (int i = 0; i < 3000; i++) {
            TracePacket p;
            do {
                p = TestPackets.randomPacket(r, 1_000_000L + i, r.nextInt(4) == 0 ? 600 : 40, 3000);
            } while (p.getSerializedSize() > 3000);
            write(w, p);
            expected.add(p);
            if (--untilFlush == 0) {
                rig.flushAndReadCommitted(w);
                untilFlush = 1 + r.nextInt(30);
            }
        }
        rig.flushAndReadCommitted(w);

        assertEquals(0, w.droppedPackets());
        assertEquals(3000, w.packetsWritten());
        SequenceReader.Result seq = rig.sequence(w.writerId()).assertWellFormed();
        assertEquals(expected, seq.timeline());
        assertEquals(range(seq.chunks().size()), rig.chunkIdsOf(w.writerId()));
        assertTrue(rig.copies().stream().allMatch(c -> c.targetBuffer() == 7), "every chunk committed for buffer 7");
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertTrue(chunks.stream().anyMatch(c -> c.hasFlag(ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT)),
                "some packets span chunks");
        assertTrue(chunks.stream().anyMatch(c -> c.hasFlag(ChunkHeader.FLAG_NEEDS_PATCHING)), "some chunks needed patches");
        assertTrue(seq.patchesApplied() > 0);
    }

    @Test
    void chunkIdsOfAWriterAreConsecutiveFromZero() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        for (int i = 0; i < 40; i++) {
            write(w, small(i));
            rig.flushAndReadCommitted(w); // one chunk per packet
        }
        assertEquals(range(40), rig.chunkIdsOf(w.writerId()));
        assertEquals(IntStream.range(0, 40).mapToObj(TraceWriterTest::small).collect(Collectors.toList()),
                rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void flushHandsOverTheCurrentChunkAndTheNextPacketStartsANewOne() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        write(w, small(2));
        rig.flush(); // the commit thread's flush alone: the writer still holds its chunk
        assertEquals(List.of(), rig.chunksOf(w.writerId()), "nothing committed before the writer flushes");
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(1, chunks.size());
        assertEquals(2, chunks.get(0).packetCount());
        assertEquals(List.of(0), flagsOf(chunks));
        assertEquals(List.of(small(1), small(2)), rig.sequence(w.writerId()).assertWellFormed().timeline());

        w.flush(); // nothing open: nothing to hand over
        write(w, small(3));
        rig.flush(w);
        assertEquals(List.of(0, 1), rig.chunkIdsOf(w.writerId()));
        assertEquals(List.of(small(1), small(2), small(3)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    /**
     * A writer whose packets all need incremental state marks every chunk it takes, a packet's
     * continuation among them; any other writer marks none. It says so before its first packet.
     */
    @Test
    void aWriterWhosePacketsNeedIncrementalStateFlagsEveryChunkItWrites() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter marked = new TraceWriter(rig.arbiter, 0);
        TraceWriter plain = new TraceWriter(rig.arbiter, 0);
        marked.packetsNeedIncrementalState();
        write(marked, small(1));
        Random r = new Random(5);
        TracePacket spanning = withMarker(2, 2 * DIV1_PAYLOAD, r);
        write(marked, spanning);
        write(marked, small(3));
        write(plain, small(1));
        write(plain, withMarker(2, 2 * DIV1_PAYLOAD, r));
        rig.flush(marked);
        rig.flush(plain);

        int needs = ChunkHeader.FLAG_NEEDS_INCREMENTAL_STATE;
        List<Integer> markedFlags = flagsOf(rig.chunksOf(marked.writerId()));
        assertTrue(markedFlags.size() >= 3, "the packet spans chunks: " + markedFlags);
        assertTrue(markedFlags.stream().allMatch(f -> (f & needs) != 0), "every chunk: " + markedFlags);
        assertTrue(markedFlags.stream().anyMatch(f -> (f & ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV) != 0));
        List<Integer> plainFlags = flagsOf(rig.chunksOf(plain.writerId()));
        assertTrue(plainFlags.size() >= 3 && plainFlags.stream().noneMatch(f -> (f & needs) != 0), "none: " + plainFlags);
        assertEquals(List.of(small(1), spanning, small(3)), rig.sequence(marked.writerId()).assertWellFormed().timeline());
        write(plain, small(4));
        assertThrows(IllegalStateException.class, plain::packetsNeedIncrementalState, "not after its first packet");
    }

    /** A chunk left with 0..3 bytes after a packet has no room for the next frame's size field. */
    @ParameterizedTest(name = "{0} bytes left")
    @ValueSource(ints = {0, 1, 2, 3})
    void packetStartingWhereTheChunkIsFullGoesToTheNextChunkWithoutContinuation(int bytesLeft) throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TracePacket a = withFrameSize(1, DIV4_PAYLOAD - bytesLeft, new Random(3));
        write(w, a);
        write(w, small(2));
        write(w, small(3));
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(a, small(2), small(3)), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(List.of(1, 2), chunks.stream().map(Copy::packetCount).collect(Collectors.toList()));
        assertEquals(List.of(0, 0), flagsOf(chunks), "no packet spans");
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void readerOfAChunkStillBeingWrittenSeesOnlyCompletePackets() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        List<TracePacket> expected = List.of(small(1), withFrameSize(2, 100, new Random(9)), small(3));
        for (TracePacket p : expected) {
            write(w, p);
        }
        ProtoWriter open = w.beginPacket();
        open.varint(8, 4);
        open.beginNested(11);
        open.string(23, "not finished");

        int[] chunk = findChunkBeingWritten(rig.abi);
        Chunk seen = ChunkFrames.read(rig.abi, chunk[0], chunk[1]);
        assertEquals(3, seen.packetCount());
        assertEquals(w.writerId(), seen.writerId());
        assertEquals(0, seen.chunkId());
        assertEquals(expected, seen.parsed());
        assertSame(ChunkState.BEING_WRITTEN, rig.abi.chunkState(chunk[0], chunk[1]), "reading did not take the chunk");

        open.endNested();
        w.endPacket();
        Chunk later = ChunkFrames.read(rig.abi, chunk[0], chunk[1]);
        assertEquals(4, later.packetCount());
        assertEquals(expected, later.parsed().subList(0, 3));
        assertEquals(TracePacket.newBuilder().setTimestamp(4).setTrackEvent(TrackEvent.newBuilder().setName("not finished")).build(),
                later.parsed().get(3));
    }

    @Test
    void readerOfAChunkBeingWrittenDoesNotSeeTheFragmentOfAPacketThatContinues() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        ProtoWriter open = w.beginPacket();
        open.bytes(36, new byte[DIV4_PAYLOAD], 0, DIV4_PAYLOAD); // continues in a second chunk
        int[] chunk = findChunkBeingWritten(rig.abi);
        Chunk seen = ChunkFrames.read(rig.abi, chunk[0], chunk[1]);
        assertEquals(0, seen.packetCount(), "the continuation chunk has no finished fragment yet");
        assertEquals(ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV | ChunkHeader.FLAG_FILE_FRAMED, seen.flags());
        w.endPacket();
        assertEquals(1, ChunkFrames.read(rig.abi, chunk[0], chunk[1]).packetCount());
    }

    static int[] findChunkBeingWritten(SharedMemoryAbi abi) {
        int[] found = null;
        for (int page = 0; page < abi.pageCount(); page++) {
            int bitmap = abi.pageBitmap(page);
            PageLayout layout = PageHeader.layout(bitmap);
            for (int i = 0; layout != null && i < layout.chunksPerPage(); i++) {
                if (PageHeader.chunkState(bitmap, i) == ChunkState.BEING_WRITTEN) {
                    assertEquals(null, found, "only one chunk is being written");
                    found = new int[] {page, i};
                }
            }
        }
        assertNotEquals(null, found, "a chunk is being written");
        return found;
    }

    @Test
    void twoWritersGetDifferentIdsAndEachChunkCarriesItsWritersPackets() throws IOException {
        rig = new SmbRig(dir, 128 * 1024, 4096);
        TraceWriter w1 = new TraceWriter(rig.arbiter, 1);
        TraceWriter w2 = new TraceWriter(rig.arbiter, 2);
        assertNotEquals(w1.writerId(), w2.writerId());
        assertTrue(w1.writerId() >= 1 && w1.writerId() <= ChunkHeader.MAX_WRITER_ID);
        assertTrue(w2.writerId() >= 1 && w2.writerId() <= ChunkHeader.MAX_WRITER_ID);
        Random r = new Random(10);
        List<TracePacket> p1 = new ArrayList<>();
        List<TracePacket> p2 = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            TracePacket a = withMarker(i, r.nextInt(1500), r);
            TracePacket b = withMarker(100_000 + i, r.nextInt(1500), r);
            write(w1, a);
            write(w2, b);
            p1.add(a);
            p2.add(b);
            if (i % 20 == 19) {
                rig.flushAndReadCommitted(w1, w2);
            }
        }
        rig.flushAndReadCommitted(w1, w2);
        assertEquals(p1, rig.sequence(w1.writerId()).assertWellFormed().timeline());
        assertEquals(p2, rig.sequence(w2.writerId()).assertWellFormed().timeline());
        assertEquals(range(rig.chunksOf(w1.writerId()).size()), rig.chunkIdsOf(w1.writerId()));
        assertEquals(range(rig.chunksOf(w2.writerId()).size()), rig.chunkIdsOf(w2.writerId()));
        for (Copy c : rig.copies()) {
            assertEquals(c.writerId() == w1.writerId() ? 1 : 2, c.targetBuffer(), "target buffer of its writer");
        }
    }

    @Test
    void closingAWriterCommitsItsLastChunkAndItsIdIsNotHandedStraightToTheNextWriter() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w1 = new TraceWriter(rig.arbiter, 0);
        TraceWriter w2 = new TraceWriter(rig.arbiter, 0);
        int id1 = w1.writerId();
        write(w1, small(1));
        w1.close();
        rig.flush();
        assertEquals(List.of(small(1)), rig.sequence(id1).assertWellFormed().timeline());

        TraceWriter w3 = new TraceWriter(rig.arbiter, 0);
        assertNotEquals(id1, w3.writerId(), "a recycled id would restart chunk ids on the old writer's sequence");
        assertNotEquals(w2.writerId(), w3.writerId());
    }

    @Test
    void writerCannotBeCreatedWhenEveryWriterIdIsTaken() throws IOException {
        rig = new SmbRig(dir, 16 * 1024, 4096);
        int taken = 0;
        while (rig.arbiter.allocateWriterId() > 0) {
            taken++;
        }
        assertEquals(ChunkHeader.MAX_WRITER_ID, taken);
        assertThrows(IllegalStateException.class, () -> new TraceWriter(rig.arbiter, 0));
        rig.arbiter.freeWriterId(1234);
        assertEquals(1234, new TraceWriter(rig.arbiter, 0).writerId());
    }

    @Test
    void abortedPacketBecomesADropMarkerAndTheNextPacketFollowsIt() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        ProtoWriter p = w.beginPacket();
        p.varint(8, 2);
        p.beginNested(11);
        p.string(23, "half-written");
        w.abortPacket();
        w.abortPacket(); // no packet open: nothing to do
        write(w, small(3));
        assertEquals(1, w.droppedPackets());
        assertEquals(2, w.packetsWritten());
        rig.flush(w);
        SequenceReader.Result seq = rig.sequence(w.writerId()).assertWellFormed();
        assertEquals(List.of(small(1), LOSS, small(3)), seq.timeline());
        assertEquals(1, seq.dropMarkers());
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(1, chunks.size());
        assertEquals(3, chunks.get(0).packetCount(), "packet, drop marker, packet");
        assertTrue(chunks.get(0).frames().get(1).isDropMarker());
    }

    @Test
    void packetAbortedRightAfterBeginPacketBecomesADropMarker() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        w.beginPacket();
        w.abortPacket();
        write(w, small(2));
        rig.flush(w);
        assertEquals(List.of(LOSS, small(2)), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(1, w.droppedPackets());
    }

    @Test
    void misuseOfThePacketProtocolThrows() throws IOException {
        rig = new SmbRig(dir, 16 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        assertThrows(IllegalStateException.class, w::endPacket, "endPacket without beginPacket");
        ProtoWriter p = w.beginPacket();
        assertThrows(IllegalStateException.class, w::beginPacket, "beginPacket twice");
        assertThrows(IllegalStateException.class, w::flush, "flush inside a packet");
        p.beginNested(11);
        assertThrows(IllegalStateException.class, w::endPacket, "nested message still open");
        p.endNested();
        w.endPacket();
        assertEquals(1, w.packetsWritten());
    }

    @Test
    void nestedAnnotationsOfRandomShapesSpanningChunksParseBack() throws IOException {
        rig = new SmbRig(dir, 512 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(77);
        List<TracePacket> expected = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            TrackEvent.Builder event = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT);
            for (int j = r.nextInt(30); j > 0; j--) {
                DebugAnnotation.Builder a = DebugAnnotation.newBuilder().setName(TestPackets.randomString(r, 20));
                for (int k = r.nextInt(4); k > 0; k--) {
                    a.addDictEntries(DebugAnnotation.newBuilder().setName("e" + k)
                            .setStringValue(TestPackets.randomString(r, 300)));
                }
                event.addDebugAnnotations(a);
            }
            TracePacket p = TracePacket.newBuilder().setTimestamp(i).setTrackEvent(event).build();
            write(w, p);
            expected.add(p);
            if (i % 5 == 4) {
                rig.flushAndReadCommitted(w);
            }
        }
        rig.flush(w);
        SequenceReader.Result seq = rig.sequence(w.writerId()).assertWellFormed();
        assertEquals(expected, seq.timeline());
        assertEquals(0, w.droppedPackets());
        assertTrue(seq.patchesApplied() > 50, "patches: " + seq.patchesApplied());
    }

    @Test
    void reservedFastPathPacketsInterleaveWithOrdinaryAndSpanningOnes() throws IOException {
        rig = new SmbRig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(30);
        List<TracePacket> expected = new ArrayList<>();
        int reserved = 0;
        int refused = 0;
        for (int i = 0; i < 300; i++) {
            TracePacket p = withMarker(i, r.nextInt(3) == 0 ? 1500 : r.nextInt(100), r);
            if (r.nextBoolean()) {
                byte[] encoded = p.toByteArray();
                int at = w.tryReserve(encoded.length);
                if (at >= 0) {
                    w.buffer().put(at, encoded);
                    w.commitReserved(encoded.length);
                    reserved++;
                } else {
                    refused++;
                    write(w, p);
                }
            } else {
                write(w, p);
            }
            expected.add(p);
            if (i % 20 == 19) {
                rig.flushAndReadCommitted(w);
            }
        }
        rig.flush(w);
        assertEquals(expected, rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertTrue(reserved > 50 && refused > 10, reserved + " reserved, " + refused + " refused");
        assertEquals(300, w.packetsWritten());
    }

    @Test
    void everyPacketIsFramedAsATraceFilesPacketFieldAndEndsInASlotHoldingItsWritersProposedSequenceId() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        assertEquals(WireFormat.MAX_SLOT_SEQUENCE_ID, w.proposedSequenceId(), "the SMB's first writer proposes the highest id");
        write(w, small(5));
        byte[] reserved = small(6).toByteArray();
        int at = w.tryReserve(reserved.length);
        w.buffer().put(at, reserved);
        w.commitReserved(reserved.length);
        rig.flush(w);

        Copy chunk = rig.chunksOf(w.writerId()).get(0);
        byte[] expected = {
            0x0A, (byte) 0x85, (byte) 0x80, (byte) 0x80, 0x00, 0x40, 0x05, 0x50, (byte) 0xFF, 0x7F, // 4-byte size
            0x0A, 0x05, 0x40, 0x06, 0x50, (byte) 0xFF, 0x7F, // reserved: 1-byte size
        };
        byte[] frames = Arrays.copyOf(chunk.payload(), expected.length);
        assertArrayEquals(expected, frames);
        assertTrue(chunk.hasFlag(ChunkHeader.FLAG_FILE_FRAMED));
        int id = WireFormat.MAX_SLOT_SEQUENCE_ID;
        assertEquals(List.of(small(5).toBuilder().setTrustedPacketSequenceId(id).build(),
                small(6).toBuilder().setTrustedPacketSequenceId(id).build()), Trace.parseFrom(frames).getPacketList(),
                "the frames are a piece of a trace file as they are");
    }

    @Test
    void writersProposeDistinctSequenceIdsUntilTheUpperHalfOfTheSlotsRangeIsUsedUpThenNone() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int i = 0; i < ChunkArbiter.PROPOSALS; i++) {
            int id = rig.arbiter.proposeSequenceId();
            assertTrue(id > WireFormat.MAX_SLOT_SEQUENCE_ID - ChunkArbiter.PROPOSALS && id <= WireFormat.MAX_SLOT_SEQUENCE_ID, "id " + id);
            assertTrue(seen.add(id), "id " + id + " proposed twice");
        }
        assertEquals(0, rig.arbiter.proposeSequenceId());
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        assertEquals(0, w.proposedSequenceId());
        write(w, small(1));
        rig.flush(w);
        assertEquals(List.of(small(1)), rig.sequence(w.writerId()).assertWellFormed().timeline(), "its slots stay empty");
    }

    @Test
    void aReservationNeedsRoomForItsSlotAndOneByteMoreAndStaysInsideItsChunk() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        int left = 100;
        TracePacket filler = withFrameSize(1, DIV4_PAYLOAD - left, new Random(31));
        write(w, filler);
        TracePacket fits = withMarker(2, 89, new Random(32));
        byte[] encoded = fits.toByteArray();
        assertEquals(left - 2 - WireFormat.SEQUENCE_ID_SLOT_BYTES - 1, encoded.length, "tag, 1-byte size, packet, slot, one byte");

        assertEquals(-1, w.tryReserve(encoded.length + 1), "one byte short: a tail this long is worth a fragment");
        int at = w.tryReserve(encoded.length);
        assertTrue(at >= 0, "exactly enough room");
        w.buffer().put(at, encoded);
        w.commitReserved(encoded.length);
        write(w, small(3));
        rig.flush(w);

        assertEquals(List.of(2, 1), rig.chunksOf(w.writerId()).stream().map(Copy::packetCount).collect(Collectors.toList()));
        assertEquals(List.of(filler, fits, small(3)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void aReservationTakesAFreshChunkWhenTheCurrentOnesTailIsTooShortForAFragment() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        byte[] first = small(1).toByteArray();
        int at = w.tryReserve(first.length);
        assertTrue(at >= 0, "a writer without a chunk takes one");
        w.buffer().put(at, first);
        w.commitReserved(first.length);
        TracePacket filler = withFrameSize(2, DIV4_PAYLOAD - 7 - 40, new Random(33));
        write(w, filler);
        TracePacket next = withMarker(3, 29, new Random(34));
        byte[] encoded = next.toByteArray();
        at = w.tryReserve(encoded.length);
        assertTrue(at >= 0, "40 bytes left: the chunk is handed over and the packet starts the next");
        w.buffer().put(at, encoded);
        w.commitReserved(encoded.length);
        rig.flush(w);

        assertEquals(List.of(2, 1), rig.chunksOf(w.writerId()).stream().map(Copy::packetCount).collect(Collectors.toList()));
        assertEquals(List.of(small(1), filler, next), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void aWriterThatFilledItsChunkTakesTheLargestNextAndAFlushedOneASmallOne() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        for (int i = 0; i < 3 * DIV1_PAYLOAD / 7; i++) {
            byte[] encoded = small(i % 100 + 1).toByteArray();
            int at = w.tryReserve(encoded.length);
            w.buffer().put(at, encoded);
            w.commitReserved(encoded.length);
        }
        w.flush();
        write(w, small(1));
        rig.flush(w);

        List<PageLayout> layouts = rig.chunksOf(w.writerId()).stream().map(Copy::layout).collect(Collectors.toList());
        assertTrue(layouts.size() >= 4, layouts.toString());
        assertEquals(PageLayout.DIV4, layouts.get(0), "a new writer's first chunk is small");
        assertTrue(layouts.subList(1, layouts.size() - 1).stream().allMatch(l -> l == PageLayout.DIV1),
                "each chunk after one it filled is the largest: " + layouts);
        assertEquals(PageLayout.DIV4, layouts.get(layouts.size() - 1), "after a flush, a small one again");
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void aReservationRefusedForAFullSmbDropsNothingItselfAndTheSlowPathCountsTheLoss() throws IOException {
        rig = new SmbRig(dir, 16 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        byte[] encoded = small(1).toByteArray();
        int reserved = 0;
        int at;
        while ((at = w.tryReserve(encoded.length)) >= 0) {
            w.buffer().put(at, encoded);
            w.commitReserved(encoded.length);
            reserved++;
        }
        assertTrue(reserved > 1000, reserved + " reserved before the SMB was full");
        assertEquals(0, w.droppedPackets(), "a refused reservation drops nothing: the caller writes or drops the packet");
        assertEquals(reserved, w.packetsWritten());
        write(w, small(2));
        assertEquals(1, w.droppedPackets(), "the slow path finds no chunk either and counts the packet lost");
    }

    @Test
    void reservedFastPathKeepsToThe1023PacketLimit() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 32 * 1024);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(0));
        List<TracePacket> expected = new ArrayList<>(List.of(small(0)));
        for (int i = 1; i < 3000; i++) {
            byte[] encoded = small(i).toByteArray();
            int at = w.tryReserve(encoded.length);
            if (at < 0) {
                write(w, small(i));
            } else {
                w.buffer().put(at, encoded);
                w.commitReserved(encoded.length);
            }
            expected.add(small(i));
        }
        rig.flush(w);
        assertTrue(rig.chunksOf(w.writerId()).stream().allMatch(c -> c.packetCount() <= ChunkHeader.MAX_PACKETS));
        assertEquals(expected, rig.sequence(w.writerId()).assertWellFormed().timeline());
    }
}
