package io.jtrace.service.buffer;

import static io.jtrace.service.buffer.BufferTesting.BIG;
import static io.jtrace.service.buffer.BufferTesting.CHUNK_BYTES;
import static io.jtrace.service.buffer.BufferTesting.OTHER_PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.PRODUCER;
import static io.jtrace.service.buffer.BufferTesting.chunkOf;
import static io.jtrace.service.buffer.BufferTesting.commit;
import static io.jtrace.service.buffer.BufferTesting.commitPadded;
import static io.jtrace.service.buffer.BufferTesting.dropMarked;
import static io.jtrace.service.buffer.BufferTesting.names;
import static io.jtrace.service.buffer.BufferTesting.pkt;
import static io.jtrace.service.buffer.BufferTesting.stats;
import static io.jtrace.service.buffer.BufferTesting.withoutServiceFields;
import static io.jtrace.service.buffer.ChunkPayload.chunk;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TraceStats;
import io.jtrace.service.buffer.BufferTesting.Read;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.SpaceProvider;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The trace buffer's side of packets that span chunks (DESIGN §6, §7): patches of size fields left in
 * chunks already committed, incremental reads while the session runs (stopping a sequence at a chunk
 * that needs patching, at an incomplete chunk and at a gap that may still be filled), the final read
 * once it ended, and drop markers.
 */
class TraceBufferPatchingTest {
    // ------------------------------------------------------------------ helpers

    /** A read while the session runs: sequences stop where more data may still arrive. */
    private static Read readWhileTracing(TraceBuffer buffer) {
        return BufferTesting.read(buffer, false);
    }

    /** A read after the session ended: everything is read, what is missing is reported. */
    private static Read readFinal(TraceBuffer buffer) {
        return BufferTesting.read(buffer, true);
    }

    private static int leInt(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    /**
     * A packet encoded the way a TraceWriter encodes it (every nested size a 4-byte redundant varint),
     * with the offsets (from the packet's first byte) of its nested size fields, outermost first:
     *
     * <pre>
     * TracePacket { timestamp = 42,
     *   track_event {                                    // size field 0
     *     track_uuid = 7,
     *     debug_annotations {                            // size field 1
     *       name_iid = 1,
     *       dict_entries { name_iid = 2, string_value }  // size field 2
     *     },
     *     name } }
     * </pre>
     */
    private record Encoded(byte[] bytes, int[] sizeFields) {
        static Encoded of(String name, int textLength) {
            ByteBuffer buf = ByteBuffer.allocate(textLength + name.length() + 256).order(ByteOrder.LITTLE_ENDIAN);
            ProtoWriter p = new ProtoWriter(new SpaceProvider() {
                @Override
                public void makeRoom(ProtoWriter writer, int needed) {
                    throw new AssertionError("the scratch buffer is large enough");
                }

                @Override
                public void patchSize(ProtoWriter writer, int level, int size) {
                    throw new AssertionError("one fragment: no patches");
                }
            });
            p.reset(buf, 0, buf.capacity());
            int[] fields = new int[3];
            p.beginFrame();
            p.varint(8, 42);
            p.beginNested(11);
            fields[0] = p.sizeFieldOffset(1);
            p.varint(11, 7);
            p.beginNested(4);
            fields[1] = p.sizeFieldOffset(2);
            p.varint(1, 1);
            p.beginNested(11);
            fields[2] = p.sizeFieldOffset(3);
            p.varint(1, 2);
            p.string(6, "t".repeat(textLength));
            p.endNested();
            p.endNested();
            p.string(23, name);
            p.endNested();
            p.endNested(); // the frame
            int start = WireFormat.RESERVED_SIZE_BYTES;
            byte[] bytes = Arrays.copyOfRange(buf.array(), start, p.position());
            for (int i = 0; i < fields.length; i++) {
                fields[i] -= start;
            }
            return new Encoded(bytes, fields);
        }

        TracePacket parsed() {
            try {
                return TracePacket.parseFrom(bytes);
            } catch (InvalidProtocolBufferException e) {
                throw new AssertionError(e);
            }
        }

        /** The correct 4 bytes of size field {@code i}, as the little-endian int a patch carries. */
        int sizeValue(int i) {
            return leInt(bytes, sizeFields[i]);
        }

        /** Bytes [from, to) of the packet, with every size field in that range zeroed: not yet known. */
        byte[] fragment(int from, int to) {
            byte[] f = Arrays.copyOfRange(bytes, from, to);
            for (int field : sizeFields) {
                if (field >= from && field + 4 <= to) {
                    Arrays.fill(f, field - from, field - from + 4, (byte) 0);
                }
            }
            return f;
        }
    }

    /**
     * Appends fragment [from, to) of {@code e} to {@code c} with its size fields still open (zero), as a
     * writer leaves them when the packet goes on in another chunk. Returns the payload offset of the
     * packet's byte 0 (maybe negative): packet offset x is at payload offset (return value + x).
     */
    private static int appendFragment(ChunkPayload c, Encoded e, int from, int to) {
        int at = c.size() + WireFormat.RESERVED_SIZE_BYTES;
        c.frame(e.fragment(from, to));
        return at - from;
    }

    /**
     * Commits {@code e} split at {@code cut} over chunks 0 and 1 of writer 1, as a writer leaves it before
     * patching: chunk 0 holds a packet named {@code before} and bytes [0, cut) of {@code e} with their size
     * fields open (so it needs patching); chunk 1 the rest of {@code e}, then packets named {@code after}.
     * Returns the payload offset in chunk 0 of the packet's byte 0 (see {@link #appendFragment}).
     */
    private static int commitSplitNeedingPatches(TraceBuffer buffer, Encoded e, int cut, String before,
                                                 String... after) {
        ChunkPayload c0 = chunkOf(before);
        int base = appendFragment(c0, e, 0, cut);
        assertTrue(commit(buffer, 1, 0, c0.lastContinuesOnNext().flags(ChunkHeader.FLAG_NEEDS_PATCHING)));
        ChunkPayload c1 = chunk();
        appendFragment(c1, e, cut, e.bytes().length);
        for (String name : after) {
            c1.packet(pkt(name));
        }
        assertTrue(commit(buffer, 1, 1, c1.firstContinuesFromPrev()));
        return base;
    }

    /** Appends fragment [from, to) of {@code e} with its size fields already right (as after patching). */
    private static void appendPatchedFragment(ChunkPayload c, Encoded e, int from, int to) {
        c.frame(Arrays.copyOfRange(e.bytes(), from, to));
    }

    // ------------------------------------------------------------------ applying patches

    @Test
    void patchesAtTheFirstAndTheLastFourBytesOfAPayloadAreApplied() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        // One packet filling the payload exactly: its frame size is the payload's first 4 bytes, and its
        // name's last 4 characters the payload's last 4 bytes. Both are left wrong and patched.
        TracePacket packet = pkt("name-abcd");
        byte[] bytes = packet.toByteArray();
        ChunkPayload c = chunk().frame(bytes).flags(ChunkHeader.FLAG_NEEDS_PATCHING);
        byte[] payload = c.bytes();
        int last = payload.length - 4;
        int frameSize = leInt(payload, 0);
        int lastBytes = leInt(payload, last);
        Arrays.fill(payload, 0, 4, (byte) 0);
        Arrays.fill(payload, last, payload.length, (byte) 'X');
        assertTrue(buffer.copyChunk(PRODUCER, 1, 0, c.packetsWord(), payload, true));

        assertTrue(buffer.applyPatch(PRODUCER, 1, 0, 0, frameSize, true));
        assertTrue(buffer.applyPatch(PRODUCER, 1, 0, last, lastBytes, false));
        Read read = readWhileTracing(buffer);

        assertEquals(1, read.packets().size(), "both patches applied, the chunk no longer needs patching");
        assertEquals(packet, withoutServiceFields(read.packets().get(0)));
        assertArrayEquals(bytes, Arrays.copyOf(read.raw().get(0), bytes.length), "the producer's bytes, exactly");
        assertEquals(2, stats(buffer).getPatchesSucceeded());
        assertEquals(0, stats(buffer).getPatchesFailed());
    }

    static Stream<Named<int[]>> badPatches() {
        // {producer, writer, chunk id, offset}; the chunks that exist are (PRODUCER, 1, 0) of PAYLOAD bytes
        // and (PRODUCER, 1, 1).
        return Stream.of(
                Named.of("negative offset", new int[] {PRODUCER, 1, 0, -1}),
                Named.of("offset far negative", new int[] {PRODUCER, 1, 0, Integer.MIN_VALUE}),
                Named.of("last 4 bytes cross the end", new int[] {PRODUCER, 1, 0, PAYLOAD - 3}),
                Named.of("offset at the end", new int[] {PRODUCER, 1, 0, PAYLOAD}),
                Named.of("offset far past the end", new int[] {PRODUCER, 1, 0, Integer.MAX_VALUE}),
                Named.of("unknown chunk id", new int[] {PRODUCER, 1, 2, 0}),
                Named.of("chunk id far away", new int[] {PRODUCER, 1, 0x80000000, 0}),
                Named.of("unknown writer", new int[] {PRODUCER, 2, 0, 0}),
                Named.of("unknown producer", new int[] {OTHER_PRODUCER, 1, 0, 0}));
    }

    private static final int PAYLOAD = CHUNK_BYTES;

    @ParameterizedTest
    @MethodSource("badPatches")
    void outOfRangePatchIsRefusedCountedAndChangesNothing(int[] patch) {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        Encoded e = Encoded.of("patched", 400);
        ChunkPayload c0 = chunkOf("before");
        // The fragment fills chunk 0 to its last byte, so a patch written even partly past the end of
        // the payload would change the packet.
        int cut = PAYLOAD - c0.size() - WireFormat.RESERVED_SIZE_BYTES;
        assertTrue(cut > e.sizeFields()[2] + 4 && cut < e.bytes().length, "the layout this test wants");
        int base = appendFragment(c0, e, 0, cut);
        c0.lastContinuesOnNext().flags(ChunkHeader.FLAG_NEEDS_PATCHING);
        assertEquals(PAYLOAD, c0.size());
        assertTrue(buffer.copyChunk(PRODUCER, 1, 0, c0.packetsWord(), c0.bytes(), true));
        ChunkPayload c1 = chunk();
        appendFragment(c1, e, cut, e.bytes().length);
        assertTrue(commit(buffer, 1, 1, c1.firstContinuesFromPrev().packet(pkt("after"))));
        long usedBefore = buffer.used();

        assertFalse(buffer.applyPatch(patch[0], patch[1], patch[2], patch[3], 0xFFFFFFFF, false));

        TraceStats.BufferStats stats = stats(buffer);
        assertEquals(1, stats.getPatchesFailed());
        assertEquals(0, stats.getPatchesSucceeded());
        assertEquals(usedBefore, buffer.used());
        assertTrue(readWhileTracing(buffer).packets().isEmpty(),
                "a refused last patch does not clear 'needs patching': the sequence still waits");

        // The right patches still work afterwards, and every packet comes out intact: the refused patch (of
        // 0xFFFFFFFF, which would break any frame or size it landed on) changed no stored byte.
        for (int level = 2; level >= 0; level--) {
            assertTrue(buffer.applyPatch(PRODUCER, 1, 0, base + e.sizeFields()[level], e.sizeValue(level), level > 0));
        }
        Read read = readWhileTracing(buffer);
        assertEquals(List.of("before", "patched", "after"), names(read.packets()));
        assertEquals(e.parsed(), withoutServiceFields(read.packets().get(1)));
        assertTrue(read.packets().stream().noneMatch(BufferTesting::dropMarked));
        assertEquals(1, stats(buffer).getPatchesFailed());
        assertEquals(3, stats(buffer).getPatchesSucceeded());
    }

    // ------------------------------------------------------------------ chunks that need patching

    @Test
    void chunkThatNeedsPatchingStopsOnlyItsSequenceUntilItsLastPatch() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        Encoded e = Encoded.of("spanning", 500);
        // All three nested size fields stay behind in chunk 0; the packet continues in chunk 1.
        int cut = e.sizeFields()[2] + 4 + 100;
        int base = commitSplitNeedingPatches(buffer, e, cut, "w1-a", "w1-b");
        assertTrue(commit(buffer, 2, 0, chunkOf("w2-a")));
        assertTrue(commit(buffer, OTHER_PRODUCER, 1, 0, chunkOf("p2-a")));

        Read first = readWhileTracing(buffer);

        assertEquals(List.of(), names(first.on(PRODUCER, 1)), "writer 1 waits at its chunk that needs patching");
        assertEquals(List.of("w2-a"), names(first.on(PRODUCER, 2)), "another writer is not held up");
        assertEquals(List.of("p2-a"), names(first.on(OTHER_PRODUCER, 1)), "nor another producer's writer");

        // The writer closes the innermost messages first: their patches say more follow.
        assertTrue(buffer.applyPatch(PRODUCER, 1, 0, base + e.sizeFields()[2], e.sizeValue(2), true));
        assertTrue(buffer.applyPatch(PRODUCER, 1, 0, base + e.sizeFields()[1], e.sizeValue(1), true));
        assertTrue(commit(buffer, 2, 1, chunkOf("w2-b")));
        Read second = readWhileTracing(buffer);

        assertEquals(List.of(), names(second.on(PRODUCER, 1)), "patches with more to come do not release the chunk");
        assertEquals(List.of("w2-b"), names(second.on(PRODUCER, 2)));

        assertTrue(buffer.applyPatch(PRODUCER, 1, 0, base + e.sizeFields()[0], e.sizeValue(0), false));
        Read third = readWhileTracing(buffer);

        List<TracePacket> w1 = third.on(PRODUCER, 1);
        assertEquals(List.of("w1-a", "spanning", "w1-b"), names(w1));
        assertEquals(e.parsed(), withoutServiceFields(w1.get(1)));
        assertArrayEquals(e.bytes(), Arrays.copyOf(third.raw().get(1), e.bytes().length),
                "glued and patched back into exactly the bytes written");
        assertTrue(w1.get(0).getFirstPacketOnSequence());
        assertTrue(w1.stream().noneMatch(BufferTesting::dropMarked), "nothing was lost");
        assertEquals(3, stats(buffer).getPatchesSucceeded());
        assertEquals(0, stats(buffer).getPatchesFailed());
    }

    @Test
    void packetFragmentedOverThreeChunksWithNestedSizesPatchedInTwoOfThem() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        Encoded e = Encoded.of("three-chunks", 600);
        // Chunk 0 holds track_event's size field; chunk 1 the two inner ones; all close in chunk 2.
        int cut1 = e.sizeFields()[0] + 4 + 1;
        int cut2 = e.sizeFields()[2] + 4 + 200;
        assertTrue(cut1 < e.sizeFields()[1], "the layout this test wants");
        ChunkPayload c0 = chunkOf("before");
        int base0 = appendFragment(c0, e, 0, cut1);
        assertTrue(commit(buffer, 1, 0, c0.lastContinuesOnNext().flags(ChunkHeader.FLAG_NEEDS_PATCHING)));
        ChunkPayload c1 = chunk();
        int base1 = appendFragment(c1, e, cut1, cut2);
        assertTrue(commit(buffer, 1, 1, c1.firstContinuesFromPrev().lastContinuesOnNext()
                .flags(ChunkHeader.FLAG_NEEDS_PATCHING)));
        ChunkPayload c2 = chunk();
        appendFragment(c2, e, cut2, e.bytes().length);
        assertTrue(commit(buffer, 1, 2, c2.firstContinuesFromPrev().packet(pkt("after"))));

        assertEquals(List.of(), names(readWhileTracing(buffer).packets()));
        // Innermost first: chunk 1's two, then chunk 0's one. Each chunk's last patch says no more follow.
        assertTrue(buffer.applyPatch(PRODUCER, 1, 1, base1 + e.sizeFields()[2], e.sizeValue(2), true));
        assertTrue(buffer.applyPatch(PRODUCER, 1, 1, base1 + e.sizeFields()[1], e.sizeValue(1), false));
        assertEquals(List.of(), names(readWhileTracing(buffer).packets()), "chunk 0 still waits for its patch");
        assertTrue(buffer.applyPatch(PRODUCER, 1, 0, base0 + e.sizeFields()[0], e.sizeValue(0), false));
        Read read = readWhileTracing(buffer);

        assertEquals(List.of("before", "three-chunks", "after"), names(read.packets()));
        assertEquals(e.parsed(), withoutServiceFields(read.packets().get(1)));
        assertArrayEquals(e.bytes(), Arrays.copyOf(read.raw().get(1), e.bytes().length));
        assertTrue(read.packets().stream().noneMatch(BufferTesting::dropMarked));
        assertEquals(3, stats(buffer).getChunksRead());
    }

    @Test
    void finalReadDropsAContinuingPacketWhosePatchesNeverCameAndMarksTheNextPacket() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        Encoded e = Encoded.of("unpatched", 300);
        int cut = e.sizeFields()[2] + 4 + 20;
        commitSplitNeedingPatches(buffer, e, cut, "before", "after", "later");
        assertTrue(readWhileTracing(buffer).packets().isEmpty(), "precondition: the sequence waits for patches");

        Read read = readFinal(buffer);

        assertEquals(List.of("before", "after", "later"), names(read.packets()),
                "the packet with unknown sizes is not delivered; whole packets around it are");
        assertFalse(dropMarked(read.packets().get(0)), "before the loss");
        assertTrue(dropMarked(read.packets().get(1)), "the first packet after the dropped one says so");
        assertFalse(dropMarked(read.packets().get(2)));
        assertEquals(0, buffer.counters().invalidPackets(), "dropped for its missing patches, not parsed as garbage");
        assertEquals(0, stats(buffer).getAbiViolations());
        assertEquals(0, buffer.used(), "the final read consumed everything");
    }

    // ------------------------------------------------------------------ gaps

    @Test
    void readWhileTracingStopsAtAGapAndResumesWithoutLossWhenTheMissingChunkArrives() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        // A packet across chunks 0, 1 and 2 (its sizes already right, as after its patches).
        Encoded e = Encoded.of("across-the-gap", 400);
        int cut1 = 100;
        int cut2 = 300;
        ChunkPayload c0 = chunkOf("c0");
        appendPatchedFragment(c0, e, 0, cut1);
        assertTrue(commit(buffer, 1, 0, c0.lastContinuesOnNext()));
        ChunkPayload c2 = chunk();
        appendPatchedFragment(c2, e, cut2, e.bytes().length);
        assertTrue(commit(buffer, 1, 2, c2.firstContinuesFromPrev().packet(pkt("c2"))));
        assertTrue(commit(buffer, 2, 0, chunkOf("other")));

        Read first = readWhileTracing(buffer);

        assertEquals(List.of("c0"), names(first.on(PRODUCER, 1)), "stops at the gap: chunk 1 may still come");
        assertEquals(List.of("other"), names(first.on(PRODUCER, 2)));

        ChunkPayload c1 = chunk();
        appendPatchedFragment(c1, e, cut1, cut2);
        assertTrue(commit(buffer, 1, 1, c1.firstContinuesFromPrev().lastContinuesOnNext()), "committed late");
        Read second = readWhileTracing(buffer);

        assertEquals(List.of("across-the-gap", "c2"), names(second.packets()));
        assertEquals(e.parsed(), withoutServiceFields(second.packets().get(0)));
        assertTrue(second.packets().stream().noneMatch(BufferTesting::dropMarked), "no loss: the gap filled");
        TraceStats.BufferStats stats = stats(buffer);
        assertEquals(1, stats.getChunksCommittedOutOfOrder());
        assertEquals(0, stats.getChunksDiscarded());
        assertEquals(0, stats.getChunksOverwritten());
    }

    @Test
    void readWhileTracingSkipsAGapKnownToBeLostAndReportsTheLoss() {
        TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        assertTrue(commitPadded(buffer, 1, 0, chunkOf("a0")));
        assertEquals(List.of("a0"), names(readWhileTracing(buffer).packets()));

        assertTrue(commitPadded(buffer, 1, 1, chunkOf("a1")));
        assertTrue(commitPadded(buffer, 2, 0, chunkOf("b0")));
        assertTrue(commitPadded(buffer, 2, 1, chunkOf("b1")));
        assertTrue(commitPadded(buffer, 1, 2, chunkOf("a2")), "RING overwrites the oldest chunk, a1");
        assertEquals(1, stats(buffer).getChunksOverwritten(), "precondition");

        Read read = readWhileTracing(buffer);

        assertEquals(List.of("a2"), names(read.on(PRODUCER, 1)), "the overwritten chunk will never come: skipped");
        assertTrue(dropMarked(read.on(PRODUCER, 1).get(0)));
        assertEquals(List.of("b0", "b1"), names(read.on(PRODUCER, 2)));
        assertTrue(read.on(PRODUCER, 2).stream().noneMatch(BufferTesting::dropMarked));
    }

    /**
     * Chunk 1 is overwritten, chunk 2 not committed yet, chunk 3 stored. Only chunk 1 is known lost: a read
     * while tracing must wait for chunk 2. Reading chunk 3 instead would make chunk 2, once it comes,
     * "older than what was read", so it would be discarded: a packet lost that was never overwritten.
     */
    @Test
    void readWhileTracingWaitsAtAGapThatIsOnlyPartlyKnownLost() {
        TraceBuffer buffer = new TraceBuffer(3 * CHUNK_BYTES, TraceBuffer.Policy.RING);
        assertTrue(commitPadded(buffer, 1, 0, chunkOf("a0")));
        assertEquals(List.of("a0"), names(readWhileTracing(buffer).packets()));
        assertTrue(commitPadded(buffer, 1, 1, chunkOf("a1")));
        assertTrue(commitPadded(buffer, 2, 0, chunkOf("b0")));
        assertTrue(commitPadded(buffer, 2, 1, chunkOf("b1")));
        // Chunk 2 of writer 1 is not committed yet; chunk 3 is, and it overwrites chunk 1.
        assertTrue(commitPadded(buffer, 1, 3, chunkOf("a3")));
        assertEquals(1, stats(buffer).getChunksOverwritten(), "precondition: chunk 1 was overwritten");

        assertEquals(List.of(), names(readWhileTracing(buffer).on(PRODUCER, 1)), "chunk 2 may still come");

        assertTrue(commitPadded(buffer, 1, 2, chunkOf("a2")));
        List<TracePacket> w1 = readWhileTracing(buffer).on(PRODUCER, 1);

        assertEquals(List.of("a2", "a3"), names(w1));
        assertTrue(dropMarked(w1.get(0)), "a2 follows the lost chunk 1");
        assertFalse(dropMarked(w1.get(1)));
    }

    @Test
    void finalReadReadsAcrossAGapAndReportsIt() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunkOf("c0")));
        assertTrue(commit(buffer, 1, 2, chunkOf("c2")));
        assertEquals(List.of("c0"), names(readWhileTracing(buffer).packets()));

        Read read = readFinal(buffer);

        assertEquals(List.of("c2"), names(read.packets()), "chunk 1 can no longer come");
        assertTrue(dropMarked(read.packets().get(0)));
    }

    // ------------------------------------------------------------------ incomplete chunks, re-commits

    @Test
    void incompleteChunkStopsAReadWhileTracingButIsReadByTheFinalRead() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunkOf("a")));
        ChunkPayload scraped = chunkOf("b", "c").count(1); // copied while "c" was being written
        assertTrue(buffer.copyChunk(PRODUCER, 1, 1, scraped.packetsWord(), scraped.bytesPaddedTo(CHUNK_BYTES), false));
        assertTrue(commit(buffer, 2, 0, chunkOf("other")));

        Read live = readWhileTracing(buffer);

        assertEquals(List.of("a"), names(live.on(PRODUCER, 1)), "stops at the chunk still being written");
        assertEquals(List.of("other"), names(live.on(PRODUCER, 2)));

        Read last = readFinal(buffer);

        assertEquals(List.of("b"), names(last.packets()), "its counted packets are read once the session ended");
        assertFalse(dropMarked(last.packets().get(0)));
        assertEquals(0, buffer.used());
    }

    @Test
    void reCommitWithMorePacketsAfterAReadWhileTracingDeliversEachPacketOnce() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        assertTrue(commit(buffer, 1, 0, chunkOf("p0")));
        ChunkPayload partial = chunkOf("p1", "p2").count(1);
        assertTrue(buffer.copyChunk(PRODUCER, 1, 1, partial.packetsWord(), partial.bytesPaddedTo(CHUNK_BYTES), false));

        assertEquals(List.of("p0"), names(readWhileTracing(buffer).packets()),
                "the incomplete chunk is left in the buffer, not consumed");

        ChunkPayload whole = chunkOf("p1", "p2", "p3");
        assertTrue(buffer.copyChunk(PRODUCER, 1, 1, whole.packetsWord(), whole.bytesPaddedTo(CHUNK_BYTES), true));
        assertTrue(commit(buffer, 1, 2, chunkOf("p4")));
        Read read = readWhileTracing(buffer);

        assertEquals(List.of("p1", "p2", "p3", "p4"), names(read.packets()));
        assertTrue(read.packets().stream().noneMatch(BufferTesting::dropMarked));
        assertTrue(read.packets().stream().noneMatch(TracePacket::getFirstPacketOnSequence));
        assertEquals(1, stats(buffer).getChunksRewritten());
        assertEquals(3, stats(buffer).getChunksWritten());
        assertTrue(readFinal(buffer).packets().isEmpty(), "nothing left to deliver twice");
    }

    // ------------------------------------------------------------------ drop markers

    @Test
    void dropMarkerMarksTheNextPacketAndCountsWriterPacketLoss() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        // An aborted packet leaves a marker in place; an SMB-full drop starts the next chunk with one.
        assertTrue(commit(buffer, 1, 0, chunkOf("a").dropMarker().packet(pkt("b"))));
        assertTrue(commit(buffer, 1, 1, chunk().dropMarker().packet(pkt("c")).packet(pkt("d"))));
        assertTrue(commit(buffer, 2, 0, chunkOf("other")));

        Read read = readWhileTracing(buffer);

        List<TracePacket> w1 = read.on(PRODUCER, 1);
        assertEquals(List.of("a", "b", "c", "d"), names(w1), "a marker is not a packet");
        assertEquals(List.of(false, true, true, false),
                w1.stream().map(BufferTesting::dropMarked).collect(Collectors.toList()));
        assertFalse(dropMarked(read.on(PRODUCER, 2).get(0)));
        assertEquals(2, buffer.counters().writerPacketLoss());
        assertEquals(2, stats(buffer).getTraceWriterPacketLoss());
        assertEquals(0, stats(buffer).getAbiViolations(), "a marker is not corruption");
    }

    @Test
    void dropMarkerAfterAnUnfinishedFragmentDropsTheFragment() {
        TraceBuffer buffer = new TraceBuffer(BIG, TraceBuffer.Policy.RING);
        Encoded e = Encoded.of("lost", 300);
        ChunkPayload c0 = chunkOf("a");
        appendFragment(c0, e, 0, 100);
        assertTrue(commit(buffer, 1, 0, c0.lastContinuesOnNext()));
        // The writer could not get the next chunk: the continuation never comes, a drop marker does.
        assertTrue(commit(buffer, 1, 1, chunk().dropMarker().packet(pkt("b"))));

        Read read = readWhileTracing(buffer);

        assertEquals(List.of("a", "b"), names(read.packets()));
        assertTrue(dropMarked(read.packets().get(1)));
        assertEquals(1, stats(buffer).getTraceWriterPacketLoss());
        assertEquals(0, buffer.counters().invalidPackets());
    }
}
