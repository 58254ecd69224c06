package io.jtrace.shm.abi;

import static io.jtrace.shm.abi.ChunkState.BEING_READ;
import static io.jtrace.shm.abi.ChunkState.BEING_WRITTEN;
import static io.jtrace.shm.abi.ChunkState.COMPLETE;
import static io.jtrace.shm.abi.ChunkState.FREE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.shm.testing.Race;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class SharedMemoryAbiTest {
    private static final int PAGE_SIZE = 4096;
    private static final int PAGES = 4;

    @TempDir
    Path dir;

    private SharedMemoryBuffer smb;
    private SharedMemoryAbi abi;

    @BeforeEach
    void setUp() throws IOException {
        smb = SharedMemoryBuffer.create(dir, PAGES * PAGE_SIZE, PAGE_SIZE);
        abi = new SharedMemoryAbi(smb);
    }

    /** Writes a page bitmap directly, as a (possibly hostile) producer could. */
    private void setBitmap(int page, int bitmap) {
        smb.buffer().putInt(abi.pageOffset(page), bitmap);
    }

    /** A DIV4 page with chunk {@code index} in {@code state} and chunk 3 BEING_WRITTEN (so the page stays partitioned). */
    private static int div4With(int index, ChunkState state) {
        int bitmap = PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV4), 3, BEING_WRITTEN);
        return PageHeader.withChunkState(bitmap, index, state);
    }

    /** The three transitions that name a chunk; FREE → BEING_WRITTEN is tryAcquireChunkForWriting, tested apart. */
    enum Transition {
        RELEASE_AS_COMPLETE(BEING_WRITTEN, COMPLETE),
        ACQUIRE_FOR_READING(COMPLETE, BEING_READ),
        RELEASE_AS_FREE(BEING_READ, FREE);

        final ChunkState from;
        final ChunkState to;

        Transition(ChunkState from, ChunkState to) {
            this.from = from;
            this.to = to;
        }

        /** Applies the transition; false when refused (for RELEASE_AS_COMPLETE: when it threw IllegalStateException). */
        boolean apply(SharedMemoryAbi abi, int page, int index) {
            switch (this) {
                case RELEASE_AS_COMPLETE:
                    try {
                        abi.releaseChunkAsComplete(page, index);
                        return true;
                    } catch (IllegalStateException e) {
                        return false;
                    }
                case ACQUIRE_FOR_READING:
                    return abi.tryAcquireChunkForReading(page, index);
                default:
                    return abi.releaseChunkAsFree(page, index);
            }
        }
    }

    static Stream<Arguments> illegalTransitions() {
        return Stream.of(Transition.values()).flatMap(t -> Stream.of(ChunkState.values())
                .filter(s -> s != t.from).map(s -> Arguments.of(t, s)));
    }

    @Test
    void newSmbHasEveryPageFreeAndUnpartitioned() {
        for (int page = 0; page < PAGES; page++) {
            assertEquals(0, abi.pageBitmap(page));
        }
        assertEquals(PAGES, abi.pageCount());
        assertEquals(PAGE_SIZE, abi.pageSize());
    }

    @Test
    void chunkGoesThroughTheWholeCycleByLegalTransitions() {
        assertTrue(abi.tryPartitionPage(1, PageLayout.DIV2));
        assertEquals(0, abi.tryAcquireChunkForWriting(1, PageLayout.DIV2));
        assertSame(BEING_WRITTEN, abi.chunkState(1, 0));
        abi.releaseChunkAsComplete(1, 0);
        assertSame(COMPLETE, abi.chunkState(1, 0));
        assertTrue(abi.tryAcquireChunkForReading(1, 0));
        assertSame(BEING_READ, abi.chunkState(1, 0));
        assertTrue(abi.releaseChunkAsFree(1, 0));
        assertSame(FREE, abi.chunkState(1, 0));
        assertEquals(0, abi.pageBitmap(0), "other pages untouched");
    }

    @ParameterizedTest
    @EnumSource(Transition.class)
    void legalTransitionMovesOnlyThatChunk(Transition t) {
        int before = div4With(1, t.from);
        setBitmap(2, before);
        assertTrue(t.apply(abi, 2, 1));
        assertEquals(PageHeader.withChunkState(before, 1, t.to), abi.pageBitmap(2));
    }

    @ParameterizedTest(name = "{0} from {1}")
    @MethodSource("illegalTransitions")
    void illegalTransitionIsRefusedAndLeavesTheBitmapUnchanged(Transition t, ChunkState state) {
        int before = div4With(1, state);
        setBitmap(2, before);
        assertFalse(t.apply(abi, 2, 1));
        assertEquals(before, abi.pageBitmap(2));
    }

    @ParameterizedTest
    @EnumSource(value = ChunkState.class, names = {"FREE", "COMPLETE", "BEING_READ"})
    void releasingAChunkAsCompleteThatIsNotBeingWrittenThrows(ChunkState state) {
        int before = div4With(0, state);
        setBitmap(0, before);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> abi.releaseChunkAsComplete(0, 0));
        assertTrue(e.getMessage().contains(state.name()), e.getMessage());
        assertEquals(before, abi.pageBitmap(0));
    }

    @Test
    void acquireForWritingTakesTheFirstFreeChunkOnly() {
        int bitmap = PageHeader.withLayout(PageLayout.DIV4);
        bitmap = PageHeader.withChunkState(bitmap, 0, BEING_READ);
        bitmap = PageHeader.withChunkState(bitmap, 1, COMPLETE);
        bitmap = PageHeader.withChunkState(bitmap, 3, BEING_WRITTEN);
        setBitmap(0, bitmap);
        assertEquals(2, abi.tryAcquireChunkForWriting(0, PageLayout.DIV4));
        assertEquals(PageHeader.withChunkState(bitmap, 2, BEING_WRITTEN), abi.pageBitmap(0));
    }

    @Test
    void acquireForWritingOnAFullPageReturnsMinusOneAndChangesNothing() {
        int bitmap = PageHeader.withLayout(PageLayout.DIV4);
        ChunkState[] busy = {BEING_WRITTEN, COMPLETE, BEING_READ, COMPLETE};
        for (int i = 0; i < 4; i++) {
            bitmap = PageHeader.withChunkState(bitmap, i, busy[i]);
        }
        setBitmap(0, bitmap);
        assertEquals(-1, abi.tryAcquireChunkForWriting(0, PageLayout.DIV4));
        assertEquals(bitmap, abi.pageBitmap(0));
    }

    @Test
    void acquireForWritingHandsOutEveryChunkOfThePageOnceThenMinusOne() {
        assertTrue(abi.tryPartitionPage(0, PageLayout.DIV14));
        for (int i = 0; i < 14; i++) {
            assertEquals(i, abi.tryAcquireChunkForWriting(0, PageLayout.DIV14));
        }
        assertEquals(-1, abi.tryAcquireChunkForWriting(0, PageLayout.DIV14));
    }

    @Test
    void acquireForWritingWithAnotherLayoutThanThePagesReturnsMinusOne() {
        assertTrue(abi.tryPartitionPage(0, PageLayout.DIV4));
        int before = abi.pageBitmap(0);
        for (PageLayout other : new PageLayout[] {PageLayout.DIV1, PageLayout.DIV2, PageLayout.DIV7, PageLayout.DIV14}) {
            assertEquals(-1, abi.tryAcquireChunkForWriting(0, other), other.name());
        }
        assertEquals(before, abi.pageBitmap(0));
    }

    @Test
    void acquireForWritingOnAnUnpartitionedPageReturnsMinusOne() {
        assertEquals(-1, abi.tryAcquireChunkForWriting(0, PageLayout.DIV4));
        assertEquals(-1, abi.tryAcquireChunkForWriting(0, PageLayout.NOT_PARTITIONED));
        assertEquals(0, abi.pageBitmap(0));
    }

    @Test
    void onlyAnUnpartitionedPageCanBePartitioned() {
        assertTrue(abi.tryPartitionPage(0, PageLayout.DIV7));
        assertEquals(PageHeader.withLayout(PageLayout.DIV7), abi.pageBitmap(0));
        assertFalse(abi.tryPartitionPage(0, PageLayout.DIV7), "already partitioned, same layout");
        assertFalse(abi.tryPartitionPage(0, PageLayout.DIV1), "already partitioned, other layout");
        assertEquals(PageHeader.withLayout(PageLayout.DIV7), abi.pageBitmap(0));
    }

    @Test
    void partitioningAsNotPartitionedIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> abi.tryPartitionPage(0, PageLayout.NOT_PARTITIONED));
        assertEquals(0, abi.pageBitmap(0));
    }

    @Test
    void freeingTheLastBusyChunkReturnsThePageToUnpartitioned() {
        assertTrue(abi.tryPartitionPage(0, PageLayout.DIV4));
        for (int i = 0; i < 2; i++) {
            assertEquals(i, abi.tryAcquireChunkForWriting(0, PageLayout.DIV4));
            abi.releaseChunkAsComplete(0, i);
            assertTrue(abi.tryAcquireChunkForReading(0, i));
        }
        assertTrue(abi.releaseChunkAsFree(0, 1));
        assertEquals(PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV4), 0, BEING_READ),
                abi.pageBitmap(0), "one chunk still busy: layout kept");
        assertTrue(abi.releaseChunkAsFree(0, 0));
        assertEquals(0, abi.pageBitmap(0));
        assertTrue(abi.tryPartitionPage(0, PageLayout.DIV1), "the page can be laid out anew");
    }

    @Test
    void outOfRangePagesAreRefusedByTheServiceTransitions() {
        for (int page : new int[] {-1, PAGES, PAGES + 1, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertFalse(abi.tryAcquireChunkForReading(page, 0), "page " + page);
            assertFalse(abi.releaseChunkAsFree(page, 0), "page " + page);
        }
    }

    @Test
    void outOfRangeChunkIndicesAreRefused() {
        int bitmap = 0x5555_5555 & 0x0FFF_FFFF | PageHeader.withLayout(PageLayout.DIV14); // all BEING_WRITTEN
        setBitmap(0, bitmap);
        for (int index : new int[] {-1, 14, 15, 16, 31, 100, Integer.MIN_VALUE}) {
            assertFalse(abi.tryAcquireChunkForReading(0, index), "index " + index);
            assertFalse(abi.releaseChunkAsFree(0, index), "index " + index);
            int i = index;
            assertThrows(IllegalStateException.class, () -> abi.releaseChunkAsComplete(0, i), "index " + index);
            assertEquals(bitmap, abi.pageBitmap(0));
        }
    }

    @Test
    void releasingAsCompleteOnAnOutOfRangePageThrowsIllegalState() {
        for (int page : new int[] {-1, PAGES}) {
            assertThrows(IllegalStateException.class, () -> abi.releaseChunkAsComplete(page, 0), "page " + page);
        }
    }

    @Test
    void chunkIndexBeyondThePagesLayoutIsRefusedEvenIfItsStateBitsAreSet() {
        // A hostile bitmap: DIV4, but state bits of chunks 4..6 set as if they existed.
        int bitmap = PageHeader.withLayout(PageLayout.DIV4);
        bitmap = PageHeader.withChunkState(bitmap, 4, COMPLETE);
        bitmap = PageHeader.withChunkState(bitmap, 5, BEING_READ);
        bitmap = PageHeader.withChunkState(bitmap, 6, BEING_WRITTEN);
        setBitmap(0, bitmap);
        assertFalse(abi.tryAcquireChunkForReading(0, 4));
        assertFalse(abi.releaseChunkAsFree(0, 5));
        assertThrows(IllegalStateException.class, () -> abi.releaseChunkAsComplete(0, 6));
        assertEquals(bitmap, abi.pageBitmap(0));
    }

    @Test
    void pageWithAReservedLayoutCodeIsRefused() {
        for (int code : new int[] {6, 7}) {
            int bitmap = code << 28 | 0x00FF_FFFF; // every chunk COMPLETE
            setBitmap(0, bitmap);
            assertFalse(abi.tryAcquireChunkForReading(0, 0));
            assertFalse(abi.releaseChunkAsFree(0, 0));
            assertEquals(-1, abi.tryAcquireChunkForWriting(0, PageLayout.DIV14));
            assertFalse(abi.tryPartitionPage(0, PageLayout.DIV1));
            assertEquals(bitmap, abi.pageBitmap(0));
        }
    }

    @Test
    void unpartitionedPageRefusesEveryChunkTransition() {
        assertFalse(abi.tryAcquireChunkForReading(0, 0));
        assertFalse(abi.releaseChunkAsFree(0, 0));
        assertThrows(IllegalStateException.class, () -> abi.releaseChunkAsComplete(0, 0));
        assertEquals(0, abi.pageBitmap(0));
    }

    @Test
    void racingWritersNeverGetTheSameChunk() throws Exception {
        int chunks = PAGES * PageLayout.DIV14.chunksPerPage();
        try (Race race = new Race(4)) {
            for (int round = 0; round < 200; round++) {
                List<List<Integer>> results = race.run(thread -> {
                    List<Integer> mine = new ArrayList<>();
                    for (int page = 0; page < PAGES; page++) {
                        abi.tryPartitionPage(page, PageLayout.DIV14);
                        int index;
                        while ((index = abi.tryAcquireChunkForWriting(page, PageLayout.DIV14)) >= 0) {
                            mine.add(page << 8 | index);
                        }
                    }
                    return mine;
                });
                Set<Integer> all = new HashSet<>();
                int total = 0;
                for (List<Integer> mine : results) {
                    total += mine.size();
                    all.addAll(mine);
                }
                assertEquals(total, all.size(), "round " + round + ": a chunk was handed out twice");
                assertEquals(chunks, total, "round " + round + ": every chunk handed out");
                for (int handle : all) {
                    int page = handle >>> 8;
                    int index = handle & 0xFF;
                    abi.releaseChunkAsComplete(page, index);
                    assertTrue(abi.tryAcquireChunkForReading(page, index));
                    assertTrue(abi.releaseChunkAsFree(page, index));
                }
                for (int page = 0; page < PAGES; page++) {
                    assertEquals(0, abi.pageBitmap(page));
                }
            }
        }
    }

    @Test
    void racingReadersNeverGetTheSameChunk() throws Exception {
        try (Race race = new Race(4)) {
            for (int round = 0; round < 200; round++) {
                for (int page = 0; page < PAGES; page++) {
                    assertTrue(abi.tryPartitionPage(page, PageLayout.DIV14));
                    for (int i = 0; i < 14; i++) {
                        assertEquals(i, abi.tryAcquireChunkForWriting(page, PageLayout.DIV14));
                        abi.releaseChunkAsComplete(page, i);
                    }
                }
                List<Integer> results = race.run(thread -> {
                    int won = 0;
                    for (int page = 0; page < PAGES; page++) {
                        for (int i = 0; i < 14; i++) {
                            if (abi.tryAcquireChunkForReading(page, i)) {
                                won++;
                                assertTrue(abi.releaseChunkAsFree(page, i));
                            }
                        }
                    }
                    return won;
                });
                int total = 0;
                for (int won : results) {
                    total += won;
                }
                assertEquals(PAGES * 14, total, "round " + round + ": each chunk read exactly once");
                for (int page = 0; page < PAGES; page++) {
                    assertEquals(0, abi.pageBitmap(page));
                }
            }
        }
    }
}
