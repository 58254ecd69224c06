package io.jtrace.shm.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class PageLayoutTest {
    private static final EnumSet<PageLayout> PARTITIONED = EnumSet.complementOf(EnumSet.of(PageLayout.NOT_PARTITIONED));

    @TempDir
    Path dir;

    static Stream<Arguments> layoutsAndPageSizes() {
        return PARTITIONED.stream().flatMap(layout -> Stream.of(4096, 8192, 16384, 32768)
                .map(pageSize -> Arguments.of(layout, pageSize)));
    }

    @Test
    void layoutsHavePerfettosCodesAndChunkCounts() {
        assertEquals(0, PageLayout.NOT_PARTITIONED.code());
        assertEquals(0, PageLayout.NOT_PARTITIONED.chunksPerPage());
        int[][] expected = {{1, 1}, {2, 2}, {3, 4}, {4, 7}, {5, 14}};
        PageLayout[] layouts = {PageLayout.DIV1, PageLayout.DIV2, PageLayout.DIV4, PageLayout.DIV7, PageLayout.DIV14};
        for (int i = 0; i < layouts.length; i++) {
            assertEquals(expected[i][0], layouts[i].code(), layouts[i] + " code");
            assertEquals(expected[i][1], layouts[i].chunksPerPage(), layouts[i] + " chunks");
        }
    }

    @Test
    void chunkSizesOfA4KiBPageMatchPerfetto() {
        assertEquals(4088, PageLayout.DIV1.chunkSize(4096));
        assertEquals(2044, PageLayout.DIV2.chunkSize(4096));
        assertEquals(1020, PageLayout.DIV4.chunkSize(4096));
        assertEquals(584, PageLayout.DIV7.chunkSize(4096));
        assertEquals(292, PageLayout.DIV14.chunkSize(4096));
        assertEquals(0, PageLayout.NOT_PARTITIONED.chunkSize(4096));
    }

    @ParameterizedTest(name = "{0}, page {1}")
    @MethodSource("layoutsAndPageSizes")
    void chunkSizeIsTheSpaceAfterThePageHeaderSharedEquallyRoundedDownToFour(PageLayout layout, int pageSize) {
        int share = (pageSize - PageHeader.SIZE) / layout.chunksPerPage();
        int size = layout.chunkSize(pageSize);
        assertEquals(0, size % 4, "multiple of 4");
        assertTrue(size <= share && share - size < 4, "largest multiple of 4 not above " + share + ": " + size);
    }

    @ParameterizedTest(name = "{0}, page {1}")
    @MethodSource("layoutsAndPageSizes")
    void chunksOfAPageAreContiguousAlignedAndInsideThePage(PageLayout layout, int pageSize) throws IOException {
        SharedMemoryAbi abi = new SharedMemoryAbi(SharedMemoryBuffer.create(dir, 3 * pageSize, pageSize));
        int size = layout.chunkSize(pageSize);
        for (int page = 0; page < 3; page++) {
            int pageStart = page * pageSize;
            assertEquals(pageStart, abi.pageOffset(page));
            int expected = pageStart + PageHeader.SIZE;
            for (int i = 0; i < layout.chunksPerPage(); i++) {
                int offset = abi.chunkOffset(page, layout, i);
                assertEquals(expected, offset, "chunk " + i + " starts where the previous one ends");
                assertEquals(0, offset % 4, "chunk " + i + " is 4-byte aligned");
                assertTrue(offset + size <= pageStart + pageSize, "chunk " + i + " ends inside its page");
                expected = offset + size;
            }
        }
    }

    @Test
    void fromCodeMapsEveryLayoutCodeBackToItsLayout() {
        for (PageLayout layout : PageLayout.values()) {
            assertSame(layout, PageLayout.fromCode(layout.code()));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {6, 7})
    void fromCodeOfAReservedCodeIsNull(int code) {
        assertNull(PageLayout.fromCode(code));
    }

    @ParameterizedTest
    @ValueSource(ints = {4096, 8192, 16384, 32768})
    void smallestFittingPicksTheLayoutWithMostChunksThatStillHoldTheBytes(int pageSize) {
        PageLayout[] byChunks = {PageLayout.DIV14, PageLayout.DIV7, PageLayout.DIV4, PageLayout.DIV2, PageLayout.DIV1};
        assertSame(PageLayout.DIV14, PageLayout.smallestFitting(1, pageSize));
        for (int i = 0; i < byChunks.length; i++) {
            int size = byChunks[i].chunkSize(pageSize);
            assertSame(byChunks[i], PageLayout.smallestFitting(size, pageSize), "exactly " + size + " bytes");
            PageLayout next = i + 1 < byChunks.length ? byChunks[i + 1] : null;
            assertSame(next, PageLayout.smallestFitting(size + 1, pageSize), size + 1 + " bytes");
        }
        assertNull(PageLayout.smallestFitting(pageSize, pageSize), "a whole page never fits in a chunk");
    }
}
