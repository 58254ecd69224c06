package io.jtrace.shm.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scrape's copy of a chunk the service does not own: the free clears the header and moves the
 * page's generation, and a copy is taken only if no free happened while it was made. The tests that
 * free and reuse the chunk between the copy and its validation run the protocol's steps one by one;
 * the jcstress tests run {@link ChunkSnapshot#take} against a concurrent free and reuse.
 */
class ChunkSnapshotTest {
    private static final int PAGE_SIZE = 4096;
    private static final PageLayout LAYOUT = PageLayout.DIV4;
    private static final int WRITER = 7;
    private static final int CHUNK_ID = 41;

    @TempDir
    Path dir;

    private SharedMemoryBuffer smb;
    private SharedMemoryAbi abi;
    private final ChunkSnapshot snapshot = new ChunkSnapshot();

    @BeforeEach
    void setUp() throws IOException {
        smb = SharedMemoryBuffer.create(dir, 2 * PAGE_SIZE, PAGE_SIZE);
        abi = new SharedMemoryAbi(smb);
    }

    /** Takes a FREE chunk of page 0 for writing, as a writer does (partitioning the page if needed). */
    private int acquire() {
        abi.tryPartitionPage(0, LAYOUT);
        int index = abi.tryAcquireChunkForWriting(0, LAYOUT);
        assertTrue(index >= 0, "a free chunk");
        return index;
    }

    private int offset(int index) {
        return abi.chunkOffset(0, LAYOUT, index);
    }

    /** Fills {@code packets} 8-byte packets with byte {@code fill} and publishes them, as a writer does. */
    private void writePackets(int index, int writer, int chunkId, int packets, byte fill) {
        abi.writeChunkHeader(offset(index), chunkId, writer, ChunkHeader.packetsWord(0, 0));
        fillPayload(index, packets * 8, fill);
        abi.publishPackets(offset(index), ChunkHeader.writerAndPackets(writer, ChunkHeader.packetsWord(packets, 0)));
    }

    private void fillPayload(int index, int bytes, byte fill) {
        for (int i = 0; i < bytes; i++) {
            smb.buffer().put(offset(index) + ChunkHeader.SIZE + i, fill);
        }
    }

    /** What the service does with a committed chunk: COMPLETE → BEING_READ, (copy), BEING_READ → FREE. */
    private void moveOut(int index) {
        assertTrue(abi.tryAcquireChunkForReading(0, index));
        assertTrue(abi.releaseChunkAsFree(0, index));
    }

    @Test
    void freeingAChunkClearsItsHeaderAndMovesThePagesGeneration() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 3, (byte) 'a');
        abi.releaseChunkAsComplete(0, index);
        int before = abi.pageGeneration(0);

        moveOut(index);

        assertEquals(0, abi.readWriterAndPackets(offset(index)), "writer id and packets word cleared");
        assertEquals(0, abi.readChunkId(offset(index)), "chunk id cleared");
        assertEquals(before + 1, abi.pageGeneration(0));
    }

    @Test
    void aRefusedFreeChangesNeitherTheHeaderNorTheGeneration() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 3, (byte) 'a');
        int word = abi.readWriterAndPackets(offset(index));

        assertFalse(abi.releaseChunkAsFree(0, index), "BEING_WRITTEN is not the service's to free");

        assertEquals(word, abi.readWriterAndPackets(offset(index)));
        assertEquals(CHUNK_ID, abi.readChunkId(offset(index)));
        assertEquals(0, abi.pageGeneration(0));
    }

    @Test
    void aChunkBeingWrittenIsTakenUpToItsPublishedPackets() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 2, (byte) 'a');
        fillPayload(index, 40, (byte) 'a'); // a third packet under way: written, not published

        assertEquals(ChunkSnapshot.Result.TAKEN, snapshot.take(abi, 0, index));

        assertEquals(WRITER, snapshot.writerId());
        assertEquals(CHUNK_ID, snapshot.chunkId());
        assertEquals(2, ChunkHeader.packetCount(snapshot.packetsWord()));
        assertFalse(snapshot.complete());
        assertEquals(LAYOUT.chunkSize(PAGE_SIZE) - ChunkHeader.SIZE, snapshot.length());
        ByteBuffer payload = snapshot.payload();
        for (int i = 0; i < 16; i++) {
            assertEquals('a', payload.get(i));
        }
    }

    @Test
    void aCompleteChunkIsTakenAsComplete() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 2, (byte) 'a');
        abi.releaseChunkAsComplete(0, index);

        assertEquals(ChunkSnapshot.Result.TAKEN, snapshot.take(abi, 0, index));

        assertTrue(snapshot.complete());
    }

    @Test
    void chunksThatAreFreeOrTheServicesOrHoldNoPacketYieldNothing() {
        assertEquals(ChunkSnapshot.Result.NOTHING, snapshot.take(abi, 0, 0), "unpartitioned page");
        int index = acquire();
        abi.writeChunkHeader(offset(index), CHUNK_ID, WRITER, ChunkHeader.packetsWord(0, 0));
        assertEquals(ChunkSnapshot.Result.NOTHING, snapshot.take(abi, 0, index), "no packet published yet");
        assertEquals(ChunkSnapshot.Result.NOTHING, snapshot.take(abi, 0, index + 1), "a FREE chunk");
        writePackets(index, WRITER, CHUNK_ID, 1, (byte) 'a');
        abi.releaseChunkAsComplete(0, index);
        assertTrue(abi.tryAcquireChunkForReading(0, index));
        assertEquals(ChunkSnapshot.Result.NOTHING, snapshot.take(abi, 0, index), "BEING_READ: the service's own");
        assertEquals(ChunkSnapshot.Result.NOTHING, snapshot.take(abi, 5, 0), "no such page");
        assertEquals(ChunkSnapshot.Result.NOTHING, snapshot.take(abi, 0, 9), "no such chunk");
    }

    /**
     * The window between a writer's CAS FREE → BEING_WRITTEN and its header store: without the clear, the
     * chunk would show its previous use's header (writer, chunk id, 3 packets) over the new writer's bytes.
     */
    @Test
    void aReusedChunkShowsNoHeaderBeforeItsNewWriterWritesOne() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 3, (byte) 'a');
        abi.releaseChunkAsComplete(0, index);
        moveOut(index);

        assertEquals(index, acquire(), "the new writer gets the same chunk");
        fillPayload(index, 24, (byte) 'b'); // its bytes, its header not written yet

        assertEquals(ChunkSnapshot.Result.NOTHING, snapshot.take(abi, 0, index));
    }

    @Test
    void aCopyDuringWhichTheChunkWasFreedAndReusedIsTorn() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 3, (byte) 'a');
        abi.releaseChunkAsComplete(0, index);
        assertTrue(snapshot.readHeader(abi, 0, index));

        // The chunk is moved out and its next writer (the same one, as is common) writes its next chunk,
        // and the copy sees the new bytes under the header it read.
        moveOut(index);
        assertEquals(index, acquire());
        writePackets(index, WRITER, CHUNK_ID + 1, 3, (byte) 'b');
        snapshot.copyPayload();

        assertFalse(snapshot.validate(), "header of chunk " + CHUNK_ID + " over bytes of chunk " + (CHUNK_ID + 1));
    }

    /**
     * Why the check is the page's generation and not the header: a later use can carry a header equal
     * in every field (here the same writer, chunk id and count), and only the free tells them apart.
     */
    @Test
    void aReuseWithAnIdenticalHeaderIsStillTorn() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 3, (byte) 'a');
        assertTrue(snapshot.readHeader(abi, 0, index));
        abi.releaseChunkAsComplete(0, index);
        moveOut(index);
        assertEquals(index, acquire());
        writePackets(index, WRITER, CHUNK_ID, 3, (byte) 'b');
        snapshot.copyPayload();

        assertFalse(snapshot.validate());
    }

    @Test
    void aFreeOfAnotherChunkOfThePageDuringTheCopyDiscardsItToo() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 3, (byte) 'a');
        int other = acquire();
        writePackets(other, WRITER + 1, 0, 1, (byte) 'c');
        abi.releaseChunkAsComplete(0, other);
        assertTrue(snapshot.readHeader(abi, 0, index));
        snapshot.copyPayload();

        moveOut(other);

        assertFalse(snapshot.validate(), "the generation is per page: conservative, never wrong");
    }

    @Test
    void aCopyNoFreeInterruptedIsValidEvenIfTheWriterWentOn() {
        int index = acquire();
        writePackets(index, WRITER, CHUNK_ID, 1, (byte) 'a');
        assertTrue(snapshot.readHeader(abi, 0, index));
        snapshot.copyPayload();

        writePackets(index, WRITER, CHUNK_ID, 2, (byte) 'a');
        abi.releaseChunkAsComplete(0, index);

        assertTrue(snapshot.validate(), "more packets and COMPLETE are the same use");
        assertEquals(1, ChunkHeader.packetCount(snapshot.packetsWord()), "the count the copy is known to hold");
        assertFalse(snapshot.complete());
    }
}
