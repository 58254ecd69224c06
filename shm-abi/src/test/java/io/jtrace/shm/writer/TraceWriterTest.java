package io.jtrace.shm.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jtrace.protos.DebugAnnotation;
import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.proto.ProtoWriter;
import io.jtrace.shm.testing.ChunkFrames;
import io.jtrace.shm.testing.ChunkFrames.Chunk;
import io.jtrace.shm.testing.TestPackets;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TraceWriterTest {
    /** Payload bytes of a DIV4 / DIV1 chunk on a 4 KiB page (chunk size minus its 8-byte header). */
    private static final int DIV4_PAYLOAD = PageLayout.DIV4.chunkSize(4096) - ChunkHeader.SIZE;
    private static final int DIV1_PAYLOAD = PageLayout.DIV1.chunkSize(4096) - ChunkHeader.SIZE;

    @TempDir
    Path dir;

    private Rig rig;

    @AfterEach
    void tearDown() {
        if (rig != null) {
            rig.close();
        }
    }

    /** A chunk as the service got it: committed for {@code targetBuffer}, then read and freed. */
    record Committed(int targetBuffer, Chunk chunk) {}

    /**
     * An SMB, a started commit thread whose sink records what it commits, and an arbiter: the producer
     * side, plus a reader that plays the service.
     */
    static final class Rig implements CommitSink, AutoCloseable {
        final SharedMemoryAbi abi;
        final ChunkCommitter committer;
        final ChunkArbiter arbiter;
        private final ConcurrentLinkedQueue<int[]> committed = new ConcurrentLinkedQueue<>();
        private final ConcurrentSkipListMap<Long, CompletableFuture<Void>> flushes = new ConcurrentSkipListMap<>();
        private long nextFlushId = 1;
        /** Everything read so far, in commit order. */
        final List<Committed> read = new ArrayList<>();

        Rig(Path dir, int size, int pageSize) throws IOException {
            abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, size, pageSize));
            committer = new ChunkCommitter(abi.pageCount(), this, 20, "test-commit");
            arbiter = new ChunkArbiter(abi, committer);
            committer.start();
        }

        @Override
        public void commit(CommitRequest request) {
            for (int i = 0; i < request.size(); i++) {
                committed.add(new int[] {request.page(i), request.chunk(i), request.targetBuffer(i)});
            }
        }

        @Override
        public void flushComplete(long requestId) {
            flushes.headMap(requestId, true).values().forEach(f -> f.complete(null));
        }

        /** Flushes the writers and waits until the commit thread has committed all they released. */
        void flush(TraceWriter... writers) {
            for (TraceWriter w : writers) {
                w.flush();
            }
            long id = nextFlushId++;
            CompletableFuture<Void> done = new CompletableFuture<>();
            flushes.put(id, done);
            committer.requestFlush(id);
            try {
                done.get(60, TimeUnit.SECONDS); // liveness only
            } catch (Exception e) {
                throw new AssertionError("flush " + id + " was never acknowledged", e);
            }
        }

        /** Reads and frees every chunk committed so far, as the service does, in commit order. */
        List<Committed> readCommitted() {
            List<Committed> out = new ArrayList<>();
            int[] c;
            while ((c = committed.poll()) != null) {
                assertSame(ChunkState.COMPLETE, abi.chunkState(c[0], c[1]), "committed chunk is COMPLETE");
                assertTrue(abi.tryAcquireChunkForReading(c[0], c[1]));
                out.add(new Committed(c[2], ChunkFrames.read(abi, c[0], c[1])));
                assertTrue(abi.releaseChunkAsFree(c[0], c[1]));
            }
            read.addAll(out);
            return out;
        }

        List<Chunk> chunksOf(int writerId) {
            return read.stream().map(Committed::chunk).filter(c -> c.writerId() == writerId).collect(Collectors.toList());
        }

        List<TracePacket> packetsOf(int writerId) {
            return chunksOf(writerId).stream().flatMap(c -> c.parsed().stream()).collect(Collectors.toList());
        }

        List<Integer> chunkIdsOf(int writerId) {
            return chunksOf(writerId).stream().map(Chunk::chunkId).collect(Collectors.toList());
        }

        @Override
        public void close() {
            committer.close();
        }
    }

    private static void write(TraceWriter w, TracePacket p) {
        ProtoWriter proto = w.beginPacket();
        TestPackets.writePacket(proto, p);
        w.endPacket();
    }

    private static TracePacket small(long ts) {
        return TracePacket.newBuilder().setTimestamp(ts).build();
    }

    /** A packet of timestamp + a random {@code n}-byte synchronization marker. */
    private static TracePacket withMarker(long ts, int n, Random r) {
        byte[] marker = new byte[n];
        r.nextBytes(marker);
        return TracePacket.newBuilder().setTimestamp(ts).setSynchronizationMarker(ByteString.copyFrom(marker)).build();
    }

    /** A packet of timestamp + marker whose frame ([4-byte size][packet]) is exactly {@code frameBytes}. */
    private static TracePacket withFrameSize(long ts, int frameBytes, Random r) {
        for (int n = frameBytes; n >= 0; n--) {
            TracePacket p = withMarker(ts, n, r);
            if (4 + p.getSerializedSize() == frameBytes) {
                return p;
            }
        }
        throw new AssertionError("no packet with a frame of " + frameBytes);
    }

    private static List<Integer> range(int n) {
        return IntStream.range(0, n).boxed().collect(Collectors.toList());
    }

    private static void assertChunksWellFormed(List<Chunk> chunks) {
        for (Chunk c : chunks) {
            assertTrue(c.packetCount() <= ChunkHeader.MAX_PACKETS, "chunk " + c.chunkId() + ": " + c.packetCount());
            assertEquals(0, c.flags(), "chunk " + c.chunkId() + " flags");
        }
    }

    @Test
    void randomPacketsAreReadBackExactlyOnceInOrderAndEqual() throws IOException {
        // 64 pages: even if each of the up to 50 packets between two reads took a page of its own, the SMB
        // never fills, so nothing may be dropped.
        rig = new Rig(dir, 256 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 7);
        Random r = new Random(42);
        List<TracePacket> expected = new ArrayList<>();
        int untilFlush = 1 + r.nextInt(50);
        for (int i = 0; i < 3000; i++) {
            TracePacket p;
            do {
                p = TestPackets.randomPacket(r, 1_000_000L + i, r.nextInt(4) == 0 ? 600 : 40, 3000);
            } while (p.getSerializedSize() > 3000);
            write(w, p);
            expected.add(p);
            if (--untilFlush == 0) {
                rig.flush(w);
                rig.readCommitted();
                untilFlush = 1 + r.nextInt(50);
            }
        }
        rig.flush(w);
        rig.readCommitted();

        assertEquals(0, w.droppedPackets());
        assertEquals(3000, w.packetsWritten());
        List<TracePacket> actual = rig.packetsOf(w.writerId());
        assertEquals(expected.size(), actual.size(), "packet count");
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "packet " + i);
        }
        List<Chunk> chunks = rig.chunksOf(w.writerId());
        assertEquals(range(chunks.size()), rig.chunkIdsOf(w.writerId()));
        assertChunksWellFormed(chunks);
        assertTrue(rig.read.stream().allMatch(c -> c.targetBuffer() == 7), "every chunk committed for buffer 7");
        assertTrue(chunks.stream().anyMatch(c -> c.layout() != ChunkArbiter.DEFAULT_LAYOUT), "big packets got bigger chunks");
    }

    @Test
    void chunkIdsOfAWriterAreConsecutiveFromZero() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        for (int i = 0; i < 40; i++) {
            write(w, small(i));
            rig.flush(w); // one chunk per packet
            rig.readCommitted();
        }
        assertEquals(range(40), rig.chunkIdsOf(w.writerId()));
        assertEquals(IntStream.range(0, 40).mapToObj(TraceWriterTest::small).collect(Collectors.toList()),
                rig.packetsOf(w.writerId()));
    }

    @Test
    void noChunkHoldsMoreThan1023Packets() throws IOException {
        // 32 KiB pages: a DIV4 chunk has room for far more than 1023 tiny packets, so the count limit binds.
        rig = new Rig(dir, 64 * 1024, 32 * 1024);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        List<TracePacket> expected = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            TracePacket p = small(i + 1);
            write(w, p);
            expected.add(p);
        }
        rig.flush(w);
        rig.readCommitted();
        List<Chunk> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(1023, 1023, 954), chunks.stream().map(Chunk::packetCount).collect(Collectors.toList()));
        assertEquals(List.of(0, 1, 2), rig.chunkIdsOf(w.writerId()));
        assertEquals(expected, rig.packetsOf(w.writerId()));
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void packetThatDoesNotFitInTheRestOfAChunkMovesWholeToTheNextChunk() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(1);
        TracePacket a = withFrameSize(1, 600, r);
        TracePacket b = withFrameSize(2, 600, r);
        TracePacket c = small(3);
        write(w, a);
        write(w, b);
        write(w, c);
        rig.flush(w);
        rig.readCommitted();
        List<Chunk> chunks = rig.chunksOf(w.writerId());
        assertEquals(2, chunks.size());
        assertEquals(List.of(a), chunks.get(0).parsed());
        assertEquals(List.of(b, c), chunks.get(1).parsed());
        assertChunksWellFormed(chunks);
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void packetCrossingTheChunkEndInsideNestedMessagesMovesWhole() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TracePacket first = withFrameSize(1, 500, new Random(2));
        TrackEvent.Builder event = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT).setName("nested");
        for (int i = 0; i < 12; i++) {
            event.addDebugAnnotations(DebugAnnotation.newBuilder().setName("k" + i)
                    .addDictEntries(DebugAnnotation.newBuilder().setName("inner" + i).setStringValue("v".repeat(40))));
        }
        TracePacket second = TracePacket.newBuilder().setTimestamp(2).setTrackEvent(event).build();
        assertTrue(second.getSerializedSize() > DIV4_PAYLOAD - 500 && second.getSerializedSize() < DIV4_PAYLOAD - 100);
        write(w, first);
        write(w, second);
        write(w, small(3));
        rig.flush(w);
        rig.readCommitted();
        List<Chunk> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(first), chunks.get(0).parsed());
        assertEquals(List.of(second, small(3)), chunks.get(1).parsed());
    }

    /** A chunk left with 0..3 bytes after a packet has no room for the next frame's size field. */
    @ParameterizedTest(name = "{0} bytes left")
    @ValueSource(ints = {0, 1, 2, 3})
    void packetStartingWhereTheChunkIsFullGoesToTheNextChunk(int bytesLeft) throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TracePacket a = withFrameSize(1, DIV4_PAYLOAD - bytesLeft, new Random(3));
        write(w, a);
        write(w, small(2));
        write(w, small(3));
        rig.flush(w);
        rig.readCommitted();
        List<Chunk> chunks = rig.chunksOf(w.writerId());
        assertEquals(List.of(a, small(2), small(3)), rig.packetsOf(w.writerId()));
        assertEquals(List.of(a), chunks.get(0).parsed());
        assertEquals(range(chunks.size()), rig.chunkIdsOf(w.writerId()));
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void packetAfterOneThatFillsTheLargestChunkIsKeptAndDoesNotOverwriteIt() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TracePacket full = withFrameSize(1, DIV1_PAYLOAD, new Random(4));
        write(w, full);
        write(w, small(2));
        write(w, small(3));
        rig.flush(w);
        rig.readCommitted();
        assertEquals(List.of(full, small(2), small(3)), rig.packetsOf(w.writerId()));
        assertEquals(0, w.droppedPackets());
    }

    @Test
    void largestPacketThatFitsInAChunkIsWrittenAndOneByteMoreIsDropped() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(5);
        TracePacket fits = withFrameSize(1, DIV1_PAYLOAD, r);
        TracePacket tooBig = withFrameSize(2, DIV1_PAYLOAD + 1, r);
        write(w, small(0));
        write(w, fits);
        write(w, tooBig);
        write(w, small(3));
        rig.flush(w);
        rig.readCommitted();
        assertEquals(List.of(small(0), fits, small(3)), rig.packetsOf(w.writerId()));
        assertEquals(1, w.droppedPackets());
        assertEquals(3, w.packetsWritten());
    }

    @Test
    void packetBiggerThanTheLargestChunkIsDroppedAndCountedWhileItsNeighboursSurvive() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(6);
        TracePacket huge = withFrameSize(2, 5000, r);
        write(w, small(1));
        write(w, huge);
        write(w, small(3));
        assertEquals(1, w.droppedPackets());
        rig.flush(w);
        rig.readCommitted();
        assertEquals(List.of(small(1), small(3)), rig.packetsOf(w.writerId()));
        assertChunksWellFormed(rig.chunksOf(w.writerId()));
    }

    @Test
    void packetThatOutgrowsTheLargestChunkFieldByFieldIsDroppedWhileItsNeighboursSurvive() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TrackEvent.Builder event = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT);
        for (int i = 0; i < 60; i++) {
            event.addDebugAnnotations(DebugAnnotation.newBuilder().setName("key" + i).setStringValue("x".repeat(100)));
        }
        TracePacket huge = TracePacket.newBuilder().setTimestamp(2).setTrackEvent(event).build();
        assertTrue(huge.getSerializedSize() > DIV1_PAYLOAD);
        write(w, small(1));
        write(w, huge);
        write(w, small(3));
        write(w, withFrameSize(4, 900, new Random(7)));
        assertEquals(1, w.droppedPackets());
        rig.flush(w);
        rig.readCommitted();
        List<TracePacket> packets = rig.packetsOf(w.writerId());
        assertEquals(List.of(1L, 3L, 4L), packets.stream().map(TracePacket::getTimestamp).collect(Collectors.toList()));
        assertEquals(range(rig.chunksOf(w.writerId()).size()), rig.chunkIdsOf(w.writerId()));
    }

    @Test
    void whenTheSmbIsFullPacketsAreDroppedAndCountedAndWritingResumesOnceChunksAreFreed() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        Random r = new Random(8);
        List<TracePacket> kept = new ArrayList<>();
        long ts = 0;
        while (w.droppedPackets() == 0) {
            assertTrue(ts < 10_000, "the SMB never filled up");
            TracePacket p = withMarker(ts++, 200 + r.nextInt(200), r);
            write(w, p);
            if (w.droppedPackets() == 0) {
                kept.add(p);
            }
        }
        for (int i = 0; i < 10; i++) {
            write(w, small(ts++));
        }
        assertEquals(11, w.droppedPackets(), "every packet written while the SMB is full is dropped");
        assertEquals(kept.size(), w.packetsWritten());

        rig.flush(w);
        rig.readCommitted(); // the service frees every chunk
        assertEquals(kept, rig.packetsOf(w.writerId()));

        List<TracePacket> after = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            TracePacket p = withMarker(ts++, 200 + r.nextInt(200), r);
            write(w, p);
            after.add(p);
        }
        assertEquals(11, w.droppedPackets(), "no drops once chunks are free again");
        rig.flush(w);
        rig.readCommitted();
        List<TracePacket> all = new ArrayList<>(kept);
        all.addAll(after);
        assertEquals(all, rig.packetsOf(w.writerId()));
        assertEquals(range(rig.chunksOf(w.writerId()).size()), rig.chunkIdsOf(w.writerId()));
    }

    @Test
    void packetWithAFieldBiggerThan4KiBIsDroppedCleanlyWhenTheSmbIsFull() throws IOException {
        rig = new Rig(dir, 64 * 1024, 32 * 1024);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        List<Integer> stolen = new ArrayList<>();
        int handle;
        while ((handle = rig.arbiter.acquireChunk(12)) >= 0) {
            stolen.add(handle); // every other chunk taken: the SMB is full
        }
        TracePacket big = withMarker(2, 10_000, new Random(12)); // fits a chunk, not the rest of this one
        write(w, big);
        write(w, small(3));
        assertEquals(2, w.droppedPackets());

        for (int h : stolen) {
            int page = ChunkArbiter.pageOf(h);
            int index = ChunkArbiter.indexOf(h);
            rig.abi.releaseChunkAsComplete(page, index);
            assertTrue(rig.abi.tryAcquireChunkForReading(page, index));
            assertTrue(rig.abi.releaseChunkAsFree(page, index));
        }
        rig.flush(w);
        rig.readCommitted();
        write(w, big);
        rig.flush(w);
        rig.readCommitted();
        assertEquals(List.of(small(1), big), rig.packetsOf(w.writerId()));
        assertEquals(2, w.droppedPackets());
    }

    @Test
    void readerOfAChunkStillBeingWrittenSeesOnlyCompletePackets() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
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

    private static int[] findChunkBeingWritten(SharedMemoryAbi abi) {
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
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w1 = new TraceWriter(rig.arbiter, 1);
        TraceWriter w2 = new TraceWriter(rig.arbiter, 2);
        assertNotEquals(w1.writerId(), w2.writerId());
        assertTrue(w1.writerId() >= 1 && w1.writerId() <= ChunkHeader.MAX_WRITER_ID);
        assertTrue(w2.writerId() >= 1 && w2.writerId() <= ChunkHeader.MAX_WRITER_ID);
        Random r = new Random(10);
        List<TracePacket> p1 = new ArrayList<>();
        List<TracePacket> p2 = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            TracePacket a = withMarker(i, r.nextInt(300), r);
            TracePacket b = withMarker(100_000 + i, r.nextInt(300), r);
            write(w1, a);
            write(w2, b);
            p1.add(a);
            p2.add(b);
            if (i % 50 == 49) {
                rig.flush(w1, w2);
                rig.readCommitted();
            }
        }
        rig.flush(w1, w2);
        rig.readCommitted();
        assertEquals(p1, rig.packetsOf(w1.writerId()));
        assertEquals(p2, rig.packetsOf(w2.writerId()));
        assertEquals(range(rig.chunksOf(w1.writerId()).size()), rig.chunkIdsOf(w1.writerId()));
        assertEquals(range(rig.chunksOf(w2.writerId()).size()), rig.chunkIdsOf(w2.writerId()));
        for (Committed c : rig.read) {
            assertEquals(c.chunk().writerId() == w1.writerId() ? 1 : 2, c.targetBuffer(), "target buffer of its writer");
        }
    }

    @Test
    void closingAWriterCommitsItsLastChunkAndItsIdIsNotHandedStraightToTheNextWriter() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w1 = new TraceWriter(rig.arbiter, 0);
        TraceWriter w2 = new TraceWriter(rig.arbiter, 0);
        int id1 = w1.writerId();
        write(w1, small(1));
        w1.close();
        rig.flush();
        rig.readCommitted();
        assertEquals(List.of(small(1)), rig.packetsOf(id1));

        TraceWriter w3 = new TraceWriter(rig.arbiter, 0);
        assertNotEquals(id1, w3.writerId(), "a recycled id would restart chunk ids on the old writer's sequence");
        assertNotEquals(w2.writerId(), w3.writerId());
    }

    @Test
    void writerCannotBeCreatedWhenEveryWriterIdIsTaken() throws IOException {
        rig = new Rig(dir, 16 * 1024, 4096);
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
    void abortedPacketIsCountedAsDroppedAndTheNextPacketTakesItsPlace() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
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
        rig.readCommitted();
        assertEquals(List.of(small(1), small(3)), rig.packetsOf(w.writerId()));
        assertEquals(1, rig.chunksOf(w.writerId()).size());
    }

    @Test
    void packetAbortedAfterMovingToANewChunkLeavesBothChunksWellFormed() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        TracePacket first = withFrameSize(1, 800, new Random(11));
        write(w, first);
        ProtoWriter p = w.beginPacket();
        p.varint(8, 2);
        p.beginNested(11);
        for (int i = 0; i < 10; i++) {
            p.string(23, "x".repeat(50)); // crosses into the next chunk
        }
        w.abortPacket();
        write(w, small(3));
        rig.flush(w);
        rig.readCommitted();
        assertEquals(List.of(first, small(3)), rig.packetsOf(w.writerId()));
        assertEquals(1, w.droppedPackets());
        assertEquals(range(rig.chunksOf(w.writerId()).size()), rig.chunkIdsOf(w.writerId()));
    }

    @Test
    void packetAbortedWhileBeingDiscardedLetsTheNextPacketContinueInTheChunk() throws IOException {
        rig = new Rig(dir, 64 * 1024, 4096);
        TraceWriter w = new TraceWriter(rig.arbiter, 0);
        write(w, small(1));
        ProtoWriter p = w.beginPacket();
        p.bytes(36, new byte[3000], 0, 3000);
        p.bytes(36, new byte[3000], 0, 3000); // now too big for any chunk: being discarded
        w.abortPacket();
        write(w, small(3));
        rig.flush(w);
        rig.readCommitted();
        assertEquals(List.of(small(1), small(3)), rig.packetsOf(w.writerId()));
        assertEquals(1, w.droppedPackets());
    }

    @Test
    void misuseOfThePacketProtocolThrows() throws IOException {
        rig = new Rig(dir, 16 * 1024, 4096);
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
}
