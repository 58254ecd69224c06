package io.jtrace.shm.writer;

import static io.jtrace.shm.testing.SequenceReader.LOSS;
import static io.jtrace.shm.writer.TraceWriterTest.DIV1_PAYLOAD;
import static io.jtrace.shm.writer.TraceWriterTest.flagsOf;
import static io.jtrace.shm.writer.TraceWriterTest.DIV4_PAYLOAD;
import static io.jtrace.shm.writer.TraceWriterTest.FRAGMENT_HEADER;
import static io.jtrace.shm.writer.TraceWriterTest.small;
import static io.jtrace.shm.writer.TraceWriterTest.withMarker;
import static io.jtrace.shm.writer.TraceWriterTest.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.testing.ChunkFrames.Copy;
import io.jtrace.shm.testing.ChunkFrames.Frame;
import io.jtrace.shm.testing.SequenceReader;
import io.jtrace.shm.testing.SmbRig;
import io.jtrace.shm.testing.SmbRigFixture;
import io.jtrace.shm.testing.TestPackets;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a writer does when no chunk is free (drop, stall), and when a packet is abandoned half-way. */
class TraceWriterSmbFullTest extends SmbRigFixture {
    private static final int FIRST = ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV;
    private static final int LAST = ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT;
    private static final int PATCH = ChunkHeader.FLAG_NEEDS_PATCHING;
    private static final int ZERO = WireFormat.redundantVarint(0);

    private static TracePacket ofSize(long ts, int bytes) {
        return withMarker(ts, bytes, new Random(ts));
    }

    // ---------------------------------------------------------------------------------------------
    // DROP

    @Test
    void aWriterThatFoundTheSmbFullScansAgainOnlyOnceChunksMayHaveBeenFreed() throws IOException {
        // A commit period of an hour: the commit thread never wakes by itself during the test.
        rig = new SmbRig(dir, 16 * 4096, 4096, true, 16, 3_600_000);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP);
        List<Integer> stolen = rig.stealAllChunks();
        write(w, small(1)); // scans every page, finds no chunk: dropped
        int handle = stolen.remove(0);
        int page = ChunkArbiter.pageOf(handle);
        int index = ChunkArbiter.indexOf(handle);
        rig.abi.releaseChunkAsComplete(page, index);
        assertTrue(rig.abi.tryAcquireChunkForReading(page, index));
        assertTrue(rig.abi.releaseChunkAsFree(page, index)); // freed without telling the producer
        write(w, small(2)); // nothing said a chunk came free: no scan, dropped at the cost of a read
        assertEquals(2, w.droppedPackets());

        rig.committer.notifyChunksFreed();
        write(w, small(3)); // scans again and takes the freed chunk
        assertEquals(2, w.droppedPackets());
        rig.flush(w);
        rig.giveBack(stolen);
        assertEquals(List.of(LOSS, small(3)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void dropsOfPacketsWrittenWhileDescribingAreLeftOutOfTheDroppedRecords() throws IOException {
        rig = new SmbRig(dir, 16 * 4096, 4096, true, 16, 3_600_000);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP);
        List<Integer> stolen = rig.stealAllChunks();
        write(w, small(1));
        w.describing(true);
        write(w, small(2));
        assertTrue(w.dropIfSmbFull(), "a descriptor dropped unwritten");
        w.describing(false);
        write(w, small(3));
        assertTrue(w.dropIfSmbFull());
        assertEquals(5, w.droppedPackets(), "every drop");
        assertEquals(3, w.droppedRecords(), "the drops of packets not written while describing");
        rig.giveBack(stolen);
    }

    @Test
    void dropIfSmbFullDropsAPacketUnwrittenOnlyWhileTheSmbIsKnownFullAndMarksTheLoss() throws IOException {
        rig = new SmbRig(dir, 16 * 4096, 4096, true, 16, 3_600_000);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP);
        TraceWriter stalling = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.STALL_THEN_DROP);
        assertFalse(w.dropIfSmbFull(), "no scan has found the SMB full yet");
        List<Integer> stolen = rig.stealAllChunks();
        write(w, small(1)); // a scan finds no chunk: dropped, and the SMB is known full
        assertTrue(w.dropIfSmbFull());
        assertFalse(stalling.dropIfSmbFull(), "a writer that may stall is never dropped this way");
        assertEquals(2, w.droppedPackets());

        rig.committer.notifyChunksFreed();
        assertFalse(w.dropIfSmbFull(), "a chunk may have been freed: the writer must look");
        rig.giveBack(stolen);
        write(w, small(2));
        // The SMB known full again, while w still holds the chunk it just took: only holding it keeps w writing.
        stolen = rig.stealAllChunks();
        TraceWriter other = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP);
        write(other, small(9));
        assertTrue(other.dropIfSmbFull(), "the SMB is known full");
        assertFalse(w.dropIfSmbFull(), "a writer with a chunk writes");
        other.beginPacket();
        assertFalse(other.dropIfSmbFull(), "a packet already open is not dropped again");
        other.abortPacket();
        rig.flush(w);
        rig.giveBack(stolen);
        assertEquals(2, w.droppedPackets());
        assertEquals(List.of(LOSS, small(2)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void dropPolicyDropsAndCountsPacketsAndTheNextChunkStartsWithADropMarker() throws IOException {
        rig = new SmbRig(dir, 16 * 4096, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP);
        write(w, small(1));
        write(w, small(2));
        List<Integer> stolen = rig.stealAllChunks();
        write(w, ofSize(3, 2 * DIV4_PAYLOAD)); // needs a second chunk: dropped
        write(w, small(4));                    // no chunk at all: dropped
        assertEquals(2, w.droppedPackets());
        assertEquals(2, w.packetsWritten());
        rig.flush(w);
        rig.giveBack(stolen);
        write(w, small(5));
        write(w, small(6));
        rig.flush(w);

        assertEquals(List.of(small(1), small(2), LOSS, small(5), small(6)),
                rig.sequence(w.writerId()).assertWellFormed().timeline());
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(0, 1), rig.chunkIdsOf(w.writerId()));
        assertEquals(List.of(0, 0), flagsOf(chunks), "the dropped packet's fragment is not in the first chunk");
        assertEquals(2, chunks.get(0).packetCount());
        assertEquals(3, chunks.get(1).packetCount(), "the drop marker counts as a packet");
        Frame marker = chunks.get(1).frames().get(0);
        assertTrue(marker.isDropMarker());
        assertEquals(FRAGMENT_HEADER, marker.contentOffset(), "the drop marker opens the chunk");
        assertEquals(2 * FRAGMENT_HEADER, chunks.get(1).frames().get(1).contentOffset(), "and has no bytes");
        assertEquals(4, w.packetsWritten());
    }

    @Test
    void whenTheSmbFillsUpPacketsAreDroppedAndWritingResumesOnceChunksAreFreed() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(8);
        List<Object> expected = new ArrayList<>();
        long ts = 0;
        while (w.droppedPackets() == 0) {
            assertTrue(ts < 10_000, "the SMB never filled up");
            TracePacket p = withMarker(ts++, 200 + r.nextInt(2000), r);
            write(w, p);
            if (w.droppedPackets() == 0) {
                expected.add(p);
            }
        }
        for (int i = 0; i < 10; i++) {
            write(w, small(ts++));
        }
        assertEquals(11, w.droppedPackets(), "every packet written while the SMB is full is dropped");
        assertEquals(expected.size(), w.packetsWritten());

        rig.flushAndReadCommitted(w); // the service frees every chunk
        SequenceReader.Result sofar = rig.sequence(w.writerId());
        assertEquals(List.of(), sofar.anomalies());
        assertEquals(expected, sofar.timeline(), "everything before the loss is intact; the loss shows with the next chunk");

        expected.add(LOSS);
        for (int i = 0; i < 100; i++) {
            TracePacket p = withMarker(ts++, 200 + r.nextInt(2000), r);
            write(w, p);
            expected.add(p);
            if (i % 10 == 9) {
                rig.flushAndReadCommitted(w);
            }
        }
        assertEquals(11, w.droppedPackets(), "no drops once chunks are free again");
        rig.flush(w);
        assertEquals(expected, rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(TraceWriterTest.range(rig.chunksOf(w.writerId()).size()), rig.chunkIdsOf(w.writerId()));
    }

    /**
     * The SMB fills up while a packet is in its {@code reached}-th chunk. Size fields it left in its first
     * chunk must still be patched (with anything: the packet is lost), so that chunk does not block its
     * sequence forever; the partial packet is not delivered; the loss is marked; the writer recovers.
     */
    @ParameterizedTest(name = "full while in chunk {0} of the packet")
    @ValueSource(ints = {1, 2, 3})
    void smbFullInTheMiddleOfASpanningPacketDropsItButSendsThePendingPatches(int reached) throws IOException {
        rig = new SmbRig(dir, 64 * 4096, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP);
        write(w, small(1));
        int room = DIV1_PAYLOAD - FRAGMENT_HEADER;
        int valueLength = reached == 1 ? 50 : DIV4_PAYLOAD + (reached - 2) * room + 1000;
        ProtoWriter p = w.beginPacket();
        p.varint(8, 2);
        // After small(1)'s 10 bytes (tag, size, 2 bytes, slot), our frame's tag and size (5) and timestamp (2):
        p.beginNested(11); // tag at 17, size field at 18
        p.beginNested(4);  // tag at 22, size field at 23
        p.string(10, "n");
        p.bytes(14, new byte[valueLength], 0, valueLength);
        List<Integer> stolen = rig.stealAllChunks();
        p.string(6, "v".repeat(DIV1_PAYLOAD)); // needs another chunk: there is none
        p.endNested();
        p.endNested();
        w.endPacket();
        assertEquals(1, w.droppedPackets());
        rig.flush(w);

        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(reached, chunks.size(), "every chunk the packet reached was handed over");
        List<CommitRequest.Patch> expectedPatches = reached == 1 ? List.of() : List.of(
                new CommitRequest.Patch(w.writerId(), 0, 23, ZERO, true),
                new CommitRequest.Patch(w.writerId(), 0, 18, ZERO, false));
        assertEquals(expectedPatches, rig.patchesOf(w.writerId()), "the size fields left behind are closed");
        if (reached > 1) {
            assertEquals(LAST | PATCH, flagsOf(chunks).get(0));
            assertEquals(0, chunks.get(reached - 1).packetCount(), "the unfinished fragment is not counted");
        } else {
            assertEquals(1, chunks.get(0).packetCount(), "only the packet before");
        }
        SequenceReader.Result before = rig.sequence(w.writerId());
        assertEquals(List.of(), before.anomalies());
        assertEquals(List.of(small(1)), before.timeline());

        rig.readCommitted();
        rig.giveBack(stolen);
        write(w, small(3));
        write(w, small(4));
        rig.flush(w);
        assertEquals(List.of(small(1), LOSS, small(3), small(4)), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(TraceWriterTest.range(reached + 1), rig.chunkIdsOf(w.writerId()));
        assertEquals(1, w.droppedPackets());
        assertEquals(3, w.packetsWritten());
    }

    @Test
    void packetWithAFieldLargerThanAChunkIsDroppedCleanlyWhenTheSmbIsFullAndWrittenOnceItIsNot() throws IOException {
        rig = new SmbRig(dir, 64 * 1024, 32 * 1024);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        List<Integer> stolen = rig.stealAllChunks();
        TracePacket big = ofSize(2, 20_000); // larger than this chunk and than the rest of it
        write(w, big);
        write(w, small(3));
        assertEquals(2, w.droppedPackets());
        rig.giveBack(stolen);
        rig.flush(w);
        write(w, big);
        rig.flush(w);
        assertEquals(List.of(small(1), LOSS, big), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(2, w.droppedPackets());
    }

    // ---------------------------------------------------------------------------------------------
    // STALL_THEN_DROP

    /**
     * A rig whose SMB (16 pages) is about to be full of chunks that wait, COMPLETE, at a parked commit
     * thread (period one hour, wake threshold far above 16·4 chunks) whose sink frees each chunk it is
     * handed. Only a wake-up, such as a stalling writer's, gets them committed and freed.
     */
    private SmbRig parkedReaderRig() throws IOException {
        // A committer sized for 4096 pages wakes early only once 256 chunks wait: never for this SMB's 64.
        SmbRig r = new SmbRig(dir, 16 * 4096, 4096, true, 4096, 3_600_000);
        r.flush(); // the commit thread has run its first round
        r.awaitCommitThreadParked();
        return r;
    }

    /** Fills the SMB with chunks waiting at the parked commit thread; returns how many. */
    private int fillWithChunksWaitingForTheReader() {
        List<Integer> stolen = rig.stealAllChunks();
        rig.releaseToCommitter(stolen);
        return stolen.size();
    }

    @Test
    void stallThenDropWaitsForAReaderThatFreesChunksAndDropsNothing() throws Exception {
        rig = parkedReaderRig();
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.STALL_THEN_DROP);
        int waiting = fillWithChunksWaitingForTheReader();
        assertEquals(64, waiting);
        assertEquals(0, rig.copies().size(), "nothing committed yet: the SMB is full");
        write(w, small(1)); // stalls, wakes the commit thread, whose reader frees the chunks
        assertEquals(0, w.droppedPackets());
        assertEquals(waiting, rig.chunksOf(0).size(), "the stall woke the commit thread, which freed the chunks");
        rig.flush(w);
        assertEquals(List.of(small(1)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void stallThenDropWaitsInTheMiddleOfASpanningPacketAndTheSizeFieldsArePatched() throws Exception {
        rig = parkedReaderRig();
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.STALL_THEN_DROP);
        String name = "x".repeat(2 * DIV1_PAYLOAD);
        write(w, small(1));
        ProtoWriter p = w.beginPacket();
        p.beginNested(11);
        p.string(23, "head");
        int waiting = fillWithChunksWaitingForTheReader();
        assertEquals(63, waiting, "every chunk but the writer's");
        p.string(23, name); // runs out of chunk and stalls; the last name wins
        p.endNested();
        w.endPacket();
        assertEquals(0, w.droppedPackets());
        assertEquals(waiting, rig.chunksOf(0).size());
        rig.flush(w);
        SequenceReader.Result seq = rig.sequence(w.writerId()).assertWellFormed();
        assertEquals(List.of(small(1), TracePacket.newBuilder().setTrackEvent(TrackEvent.newBuilder().setName(name)).build()),
                seq.timeline());
        assertEquals(1, seq.patchesApplied());
    }

    @Test
    void dropPolicyDoesNotWaitForAReaderThatWouldFreeChunks() throws Exception {
        rig = parkedReaderRig();
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.DROP);
        fillWithChunksWaitingForTheReader();
        write(w, small(1));
        assertEquals(1, w.droppedPackets(), "DROP gives up at once");
        rig.flush(w);
        write(w, small(2));
        rig.flush(w);
        assertEquals(List.of(LOSS, small(2)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void stallThenDropWithNoReaderGivesUpAndDrops() throws Exception {
        rig = new SmbRig(dir, 16 * 4096, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.STALL_THEN_DROP);
        write(w, small(1));
        w.flush();
        List<Integer> stolen = rig.stealAllChunks();
        CompletableFuture<Void> gaveUp = CompletableFuture.runAsync(() -> write(w, small(2)));
        gaveUp.get(60, TimeUnit.SECONDS); // bounded: liveness only
        assertEquals(1, w.droppedPackets());
        // A packet that stalls in the middle, holding a chunk, gives up too.
        rig.giveBack(stolen);
        ProtoWriter p = w.beginPacket();
        p.varint(8, 3);
        stolen = rig.stealAllChunks();
        CompletableFuture.runAsync(() -> {
            p.bytes(36, new byte[2 * DIV4_PAYLOAD], 0, 2 * DIV4_PAYLOAD);
            w.endPacket();
        }).get(60, TimeUnit.SECONDS);
        assertEquals(2, w.droppedPackets());
        rig.flushAndReadCommitted(w);
        rig.giveBack(stolen);
        write(w, small(4));
        rig.flush(w);
        assertEquals(List.of(small(1), LOSS, small(4)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void stallThenDropStreamsHugePacketsThroughASmallSmbWhoseReaderFreesChunksAsTheyAreCommitted() throws Exception {
        rig = new SmbRig(dir, 8 * 4096, 4096, true);
        TraceWriter w = new TraceWriter(rig.arbiter, 0, SmbFullPolicy.STALL_THEN_DROP);
        Random r = new Random(12);
        List<TracePacket> expected = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            TracePacket p = i % 4 == 0
                    ? ofSize(i, 1024 * 1024)
                    : TestPackets.randomPacket(r, i, 3000, 60_000);
            write(w, p);
            expected.add(p);
        }
        rig.flush(w);
        assertEquals(0, w.droppedPackets(), "the reader kept up (a stall lasts up to "
                + TimeUnit.NANOSECONDS.toMillis(TraceWriter.STALL_LIMIT_NANOS) + " ms)");
        SequenceReader.Result seq = rig.sequence(w.writerId()).assertWellFormed();
        assertEquals(expected, seq.timeline());
        assertArrayEquals(TestPackets.encode(expected.get(0)), seq.packets().get(0));
        assertTrue(rig.chunksOf(w.writerId()).size() > 3 * 1024 * 1024 / DIV1_PAYLOAD, "chunks were recycled many times");
    }

    // ---------------------------------------------------------------------------------------------
    // abortPacket

    @Test
    void packetAbortedAfterItSpannedChunksBecomesADropMarkerAndItsSizeFieldsAreClosed() throws IOException {
        rig = new SmbRig(dir, 64 * 4096, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        ProtoWriter p = w.beginPacket();
        p.varint(8, 2);
        p.beginNested(11); // size field at 18 of chunk 0
        p.beginNested(4);  // at 23
        p.string(10, "n");
        p.bytes(14, new byte[DIV4_PAYLOAD + 1000], 0, DIV4_PAYLOAD + 1000); // into chunk 1
        w.abortPacket();
        write(w, small(3));
        assertEquals(1, w.droppedPackets());
        rig.flush(w);

        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(LAST | PATCH, 0), flagsOf(chunks),
                "the chunk after holds a drop marker, not the promised continuation");
        assertTrue(chunks.get(1).frames().get(0).isDropMarker());
        assertEquals(List.of(new CommitRequest.Patch(w.writerId(), 0, 23, ZERO, true),
                new CommitRequest.Patch(w.writerId(), 0, 18, ZERO, false)), rig.patchesOf(w.writerId()));
        assertEquals(List.of(small(1), LOSS, small(3)), rig.sequence(w.writerId()).assertWellFormed().timeline());
    }

    @Test
    void packetAbortedInItsThirdChunkClosesTheSizeFieldsOfBothEarlierChunks() throws IOException {
        rig = new SmbRig(dir, 64 * 4096, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        ProtoWriter p = w.beginPacket();
        p.beginNested(11);                        // chunk 0
        p.string(23, "a".repeat(DIV4_PAYLOAD));   // into chunk 1
        p.beginNested(4);                         // chunk 1
        p.string(10, "b".repeat(DIV1_PAYLOAD));   // into chunk 2
        p.beginNested(11);                        // chunk 2
        p.string(10, "c");
        w.abortPacket();
        write(w, small(9));
        rig.flush(w);
        List<Copy> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(LAST | PATCH, FIRST | LAST | PATCH, 0), flagsOf(chunks));
        List<CommitRequest.Patch> patches = rig.patchesOf(w.writerId());
        assertEquals(List.of(1, 0), patches.stream().map(CommitRequest.Patch::chunkId).collect(Collectors.toList()));
        assertTrue(patches.stream().allMatch(x -> x.value() == ZERO && !x.hasMorePatches()));
        assertEquals(List.of(LOSS, small(9)), rig.sequence(w.writerId()).assertWellFormed().timeline());
        assertEquals(2, chunks.get(2).packetCount(), "drop marker, then the next packet");
    }

    @Test
    void packetAbortedWhileBeingDroppedForAFullSmbIsCountedOnce() throws IOException {
        rig = new SmbRig(dir, 16 * 4096, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        List<Integer> stolen = rig.stealAllChunks();
        ProtoWriter p = w.beginPacket();
        p.bytes(36, new byte[3000], 0, 3000); // needs another chunk: being discarded
        w.abortPacket();
        assertEquals(1, w.droppedPackets());
        rig.flush(w);
        rig.giveBack(stolen);
        write(w, small(3));
        rig.flush(w);
        SequenceReader.Result seq = rig.sequence(w.writerId()).assertWellFormed();
        assertEquals(List.of(small(1), LOSS, small(3)), seq.timeline());
        assertEquals(1, seq.dropMarkers());
        assertEquals(1, w.droppedPackets());
    }

    @Test
    void randomAbortsAndBigPacketsKeepTheSequenceWellFormed() throws IOException {
        rig = new SmbRig(dir, 1024 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(13);
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            TracePacket packet = TestPackets.randomPacket(r, i, r.nextInt(3) == 0 ? 2000 : 50, 6000);
            if (r.nextInt(5) == 0) {
                ProtoWriter p = w.beginPacket();
                TestPackets.writePacket(p, packet);
                // Abort with 0..3 nested messages open.
                for (int d = r.nextInt(4); d > 0; d--) {
                    p.beginNested(11);
                    p.string(23, TestPackets.randomString(r, 1500));
                }
                w.abortPacket();
                if (expected.isEmpty() || expected.get(expected.size() - 1) != LOSS) {
                    expected.add(LOSS);
                }
            } else {
                write(w, packet);
                expected.add(packet);
            }
            if (i % 5 == 4) {
                rig.flushAndReadCommitted(w);
            }
        }
        rig.flush(w);
        assertEquals(expected, rig.sequence(w.writerId()).assertWellFormed().timeline());
        long losses = expected.stream().filter(o -> o == LOSS).count();
        assertTrue(losses > 30, losses + " losses");
        assertTrue(rig.patchesOf(w.writerId()).size() > 30, "patches, zero-valued ones among them");
    }
}
