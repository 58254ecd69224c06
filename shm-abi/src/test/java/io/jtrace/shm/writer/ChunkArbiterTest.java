package io.jtrace.shm.writer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.abi.ChunkState;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.testing.Race;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChunkArbiterTest {
    private static final int PAGES = 4;

    @TempDir
    Path dir;

    private SharedMemoryAbi abi;
    private ChunkCommitter committer;
    private ChunkArbiter arbiter;

    @BeforeEach
    void setUp() throws IOException {
        abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, PAGES * 4096, 4096));
        committer = new ChunkCommitter(PAGES, new CommitSink() {
            @Override
            public void commit(CommitRequest request) {}

            @Override
            public void flushComplete(long requestId) {}
        }, 1000, "unused");
        arbiter = new ChunkArbiter(abi, committer);
    }

    @AfterEach
    void tearDown() {
        committer.close();
    }

    @Test
    void smallChunkComesFromAPageLaidOutWithTheDefaultLayout() {
        int handle = arbiter.acquireChunk(12);
        assertEquals(0, ChunkArbiter.pageOf(handle));
        assertSame(ChunkArbiter.defaultLayout(abi.pageSize()), ChunkArbiter.layoutOf(handle));
        assertEquals(0, ChunkArbiter.indexOf(handle));
        assertSame(ChunkArbiter.defaultLayout(abi.pageSize()), PageHeader.layout(abi.pageBitmap(0)));
        assertSame(ChunkState.BEING_WRITTEN, abi.chunkState(0, 0));
    }

    @Test
    void chunkTooBigForTheDefaultLayoutComesFromALayoutWithBigEnoughChunks() {
        assertSame(PageLayout.DIV2, ChunkArbiter.layoutOf(arbiter.acquireChunk(PageLayout.DIV4.chunkSize(4096) + 1)));
        assertSame(PageLayout.DIV1, ChunkArbiter.layoutOf(arbiter.acquireChunk(PageLayout.DIV2.chunkSize(4096) + 1)));
        assertSame(PageLayout.DIV1, ChunkArbiter.layoutOf(arbiter.acquireChunk(arbiter.maxChunkSize())));
    }

    @Test
    void chunkLargerThanAnyLayoutAllowsIsRefused() {
        assertEquals(PageLayout.DIV1.chunkSize(4096), arbiter.maxChunkSize());
        assertEquals(-1, arbiter.acquireChunk(arbiter.maxChunkSize() + 1));
        for (int page = 0; page < PAGES; page++) {
            assertEquals(0, abi.pageBitmap(page), "no page partitioned for nothing");
        }
    }

    @Test
    void pagesLaidOutForOtherSizesAreSkipped() {
        int big = arbiter.acquireChunk(3000);
        assertEquals(0, ChunkArbiter.pageOf(big));
        int small = arbiter.acquireChunk(12);
        assertEquals(1, ChunkArbiter.pageOf(small));
        assertSame(ChunkArbiter.defaultLayout(abi.pageSize()), ChunkArbiter.layoutOf(small));
    }

    @Test
    void everyChunkIsHandedOutOnceThenTheSmbIsFull() {
        Set<Integer> handles = new HashSet<>();
        for (int i = 0; i < PAGES * 4; i++) {
            int handle = arbiter.acquireChunk(12);
            assertEquals(true, handle >= 0, "chunk " + i);
            assertEquals(true, handles.add(handle), "chunk handed out twice");
        }
        assertEquals(-1, arbiter.acquireChunk(12));
        assertEquals(-1, arbiter.acquireChunk(3000), "no free page to lay out anew either");
    }

    @Test
    void freedPageCanBeLaidOutAnewForABiggerChunk() {
        for (int i = 0; i < PAGES * 4; i++) {
            arbiter.acquireChunk(12);
        }
        freeAsTheServiceDoes(2, 0, 1, 2, 3);
        int handle = arbiter.acquireChunk(3000);
        assertEquals(2, ChunkArbiter.pageOf(handle));
        assertSame(PageLayout.DIV1, ChunkArbiter.layoutOf(handle));
    }

    @Test
    void aStallingWriterFindsAChunkFreedWithoutTheFreeEpochMoving() {
        for (int i = 0; i < PAGES * 4; i++) {
            arbiter.acquireChunk(12);
        }
        assertEquals(-1, arbiter.acquireChunk(12));
        // A service in another process frees a chunk in the SMB; nothing here learns of it, and this
        // committer is never started, so the free epoch stays where the failed scan saw it.
        abi.releaseChunkAsComplete(1, 3);
        abi.tryAcquireChunkForReading(1, 3);
        abi.releaseChunkAsFree(1, 3);
        assertEquals(-1, arbiter.acquireChunk(12), "known full: no scan until the epoch moves");
        int handle = arbiter.acquireChunkStalling(12, TimeUnit.SECONDS.toNanos(30));
        assertEquals(1, ChunkArbiter.pageOf(handle));
        assertEquals(3, ChunkArbiter.indexOf(handle));
    }

    @Test
    void aFullScanLooksOnlyAtPagesFreedSinceThePreviousOne() {
        for (int i = 0; i < PAGES * 4; i++) {
            arbiter.acquireChunk(12);
        }
        assertEquals(-1, arbiter.acquireChunk(12));
        for (int page = 0; page < PAGES; page++) {
            assertEquals(false, committer.freePages().isMarked(page), "full page " + page + " still marked");
        }
        freeAsTheServiceDoes(3, 1);
        assertEquals(true, committer.freePages().isMarked(3));
        int handle = arbiter.acquireChunk(12);
        assertEquals(3, ChunkArbiter.pageOf(handle));
        assertEquals(1, ChunkArbiter.indexOf(handle));
        assertEquals(-1, arbiter.acquireChunk(12));
        assertEquals(false, committer.freePages().isMarked(3), "found full again");
    }

    @Test
    void aChunkFreedBehindTheWritersBackIsNotHandedOutUntilTheFreeIsReported() {
        for (int i = 0; i < PAGES * 4; i++) {
            arbiter.acquireChunk(12);
        }
        assertEquals(-1, arbiter.acquireChunk(12));
        committer.freePages().clear(0);
        abi.releaseChunkAsComplete(0, 2);
        abi.tryAcquireChunkForReading(0, 2);
        abi.releaseChunkAsFree(0, 2);
        committer.epochMoved();
        assertEquals(-1, arbiter.acquireChunk(12), "the page is not marked: its free was not reported");
        committer.notifyChunksFreed();
        int handle = arbiter.acquireChunk(12);
        assertEquals(0, ChunkArbiter.pageOf(handle));
        assertEquals(2, ChunkArbiter.indexOf(handle));
    }

    @Test
    void aPageFreedWhileAWriterClearedItsMarkIsMarkedAgain() {
        for (int i = 0; i < PAGES * 4; i++) {
            arbiter.acquireChunk(12);
        }
        // The writer's side of the race, one step at a time: it found page 1 full and cleared its mark;
        // the service then frees a chunk there and marks it (mark() sees the bit clear and sets it).
        committer.freePages().clear(1);
        freeAsTheServiceDoes(1, 0);
        assertEquals(true, committer.freePages().isMarked(1));
        assertEquals(1, ChunkArbiter.pageOf(arbiter.acquireChunk(12)));
    }

    @Test
    void aRequestReleasedByARemoteServiceMarksEveryPage() {
        for (int i = 0; i < PAGES * 4; i++) {
            arbiter.acquireChunk(12);
        }
        assertEquals(-1, arbiter.acquireChunk(12));
        // A service in another process freed a chunk of page 2 for an earlier request; this request (page
        // 0) is released when sent, its chunks freed later. Nothing here says where frees happened.
        abi.releaseChunkAsComplete(2, 1);
        abi.tryAcquireChunkForReading(2, 1);
        abi.releaseChunkAsFree(2, 1);
        CommitRequest sent = new CommitRequest(1, committer);
        sent.add(0, 0, 0);
        sent.release();
        for (int page = 0; page < PAGES; page++) {
            assertEquals(true, committer.freePages().isMarked(page), "page " + page);
        }
        int handle = arbiter.acquireChunk(12);
        assertEquals(2, ChunkArbiter.pageOf(handle));
        assertEquals(1, ChunkArbiter.indexOf(handle));
    }

    /** As the service does: COMPLETE, read, FREE, then the request's frees reported to the committer. */
    private void freeAsTheServiceDoes(int page, int... chunks) {
        List<Integer> handles = new ArrayList<>();
        for (int chunk : chunks) {
            handles.add(page << 8 | chunk);
        }
        freeAsTheServiceDoes(handles);
    }

    /** The same for chunks of any pages, given as the arbiter's handles, in one request. */
    private void freeAsTheServiceDoes(List<Integer> handles) {
        CommitRequest request = new CommitRequest(handles.size(), committer);
        for (int handle : handles) {
            int page = ChunkArbiter.pageOf(handle);
            int chunk = ChunkArbiter.indexOf(handle);
            abi.releaseChunkAsComplete(page, chunk);
            abi.tryAcquireChunkForReading(page, chunk);
            abi.releaseChunkAsFree(page, chunk);
            request.add(page, chunk, 0);
        }
        request.chunksFreed();
    }

    @Test
    void handleEncodesPageLayoutAndIndex() {
        int handle = 1023 << 8 | PageLayout.DIV14.code() << 4 | 13;
        assertEquals(1023, ChunkArbiter.pageOf(handle));
        assertSame(PageLayout.DIV14, ChunkArbiter.layoutOf(handle));
        assertEquals(13, ChunkArbiter.indexOf(handle));
    }

    @Test
    void racingArbiterCallsNeverHandOutTheSameChunk() throws Exception {
        try (Race race = new Race(4)) {
            for (int round = 0; round < 100; round++) {
                List<List<Integer>> results = race.run(thread -> {
                    int bytes = thread % 2 == 0 ? 12 : 1500; // two layouts competing for pages
                    List<Integer> mine = new ArrayList<>();
                    int handle;
                    while ((handle = arbiter.acquireChunk(bytes)) >= 0) {
                        mine.add(handle);
                    }
                    return mine;
                });
                Set<Long> chunks = new HashSet<>();
                List<Integer> all = new ArrayList<>();
                for (List<Integer> mine : results) {
                    all.addAll(mine);
                }
                for (int handle : all) {
                    int page = ChunkArbiter.pageOf(handle);
                    PageLayout layout = ChunkArbiter.layoutOf(handle);
                    assertSame(layout, PageHeader.layout(abi.pageBitmap(page)), "handle matches the page's layout");
                    long offset = abi.chunkOffset(page, layout, ChunkArbiter.indexOf(handle));
                    assertEquals(true, chunks.add(offset), "round " + round + ": chunk handed out twice");
                }
                int chunksOfThePages = 0;
                for (int page = 0; page < PAGES; page++) {
                    PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
                    assertNotSame(PageLayout.NOT_PARTITIONED, layout, "round " + round + ": page " + page + " left unused");
                    for (int i = 0; i < layout.chunksPerPage(); i++) {
                        assertSame(ChunkState.BEING_WRITTEN, abi.chunkState(page, i), "round " + round + " every chunk taken");
                    }
                    chunksOfThePages += layout.chunksPerPage();
                }
                assertEquals(chunksOfThePages, all.size(), "round " + round + ": every chunk handed out");
                // Freed as the service frees, so the pages are marked and the next round starts from an
                // empty SMB the arbiter knows of (a page whose last chunk is freed is laid out anew).
                freeAsTheServiceDoes(all);
            }
        }
    }

    @Test
    void theDefaultChunkCountIsHowManyFirstChunksTheSmbHandsOut() {
        int handedOut = 0;
        while (arbiter.acquireChunk(12) >= 0) {
            handedOut++;
        }
        assertEquals(PAGES * 4, handedOut);
        assertEquals(handedOut, arbiter.defaultChunkCount());
    }

    @Test
    void aWritersFirstChunkIsAboutOneKibOnEveryPageSize() {
        assertSame(PageLayout.DIV4, ChunkArbiter.defaultLayout(4096));
        assertSame(PageLayout.DIV7, ChunkArbiter.defaultLayout(8192));
        assertSame(PageLayout.DIV14, ChunkArbiter.defaultLayout(16384));
        assertSame(PageLayout.DIV14, ChunkArbiter.defaultLayout(32768));
        for (int pageSize = SharedMemoryBuffer.MIN_PAGE_SIZE; pageSize <= SharedMemoryBuffer.MAX_PAGE_SIZE; pageSize *= 2) {
            int chunk = ChunkArbiter.defaultLayout(pageSize).chunkSize(pageSize);
            assertTrue(chunk >= ChunkArbiter.DEFAULT_CHUNK_BYTES && chunk < 2400, pageSize + "-byte pages: " + chunk + "-byte chunks");
        }
    }
}
