package io.jtrace.shm.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PageHeaderTest {
    @Test
    void layoutIsStoredInBits28To30() {
        for (PageLayout layout : PageLayout.values()) {
            int bitmap = PageHeader.withLayout(layout);
            assertEquals(layout.code() << 28, bitmap);
            assertEquals(layout.code(), PageHeader.layoutCode(bitmap));
            assertSame(layout, PageHeader.layout(bitmap));
        }
    }

    @Test
    void layoutIsReadIgnoringChunkStatesAndTheReservedBit() {
        int chunks = 0x0FFFFFFF;
        assertSame(PageLayout.DIV7, PageHeader.layout(PageHeader.withLayout(PageLayout.DIV7) | chunks | 1 << 31));
    }

    @Test
    void reservedLayoutCodesInABitmapReadAsNoLayout() {
        assertNull(PageHeader.layout(6 << 28));
        assertNull(PageHeader.layout(7 << 28));
    }

    @Test
    void chunkStateOfChunkIIsStoredInBits2iAnd2iPlus1() {
        for (int i = 0; i < PageHeader.MAX_CHUNKS_PER_PAGE; i++) {
            for (ChunkState state : ChunkState.values()) {
                int bitmap = PageHeader.withChunkState(0, i, state);
                assertEquals(state.code() << (2 * i), bitmap, "chunk " + i + " " + state);
                assertSame(state, PageHeader.chunkState(bitmap, i));
            }
        }
    }

    @Test
    void settingOneChunkStateLeavesTheOtherChunksAndTheLayoutAlone() {
        int bitmap = PageHeader.withLayout(PageLayout.DIV14);
        ChunkState[] states = ChunkState.values();
        for (int i = 0; i < PageHeader.MAX_CHUNKS_PER_PAGE; i++) {
            bitmap = PageHeader.withChunkState(bitmap, i, states[i % 4]);
        }
        int changed = PageHeader.withChunkState(bitmap, 5, ChunkState.COMPLETE);
        for (int i = 0; i < PageHeader.MAX_CHUNKS_PER_PAGE; i++) {
            assertSame(i == 5 ? ChunkState.COMPLETE : states[i % 4], PageHeader.chunkState(changed, i), "chunk " + i);
        }
        assertSame(PageLayout.DIV14, PageHeader.layout(changed));
    }

    @Test
    void chunkStateCodesAreThoseOfPerfetto() {
        assertEquals(0, ChunkState.FREE.code());
        assertEquals(1, ChunkState.BEING_WRITTEN.code());
        assertEquals(2, ChunkState.BEING_READ.code());
        assertEquals(3, ChunkState.COMPLETE.code());
        for (ChunkState state : ChunkState.values()) {
            assertSame(state, ChunkState.fromCode(state.code()));
        }
    }

    @Test
    void onlyTheFourCycleTransitionsAreLegal() {
        for (ChunkState from : ChunkState.values()) {
            for (ChunkState to : ChunkState.values()) {
                boolean legal = from == ChunkState.FREE && to == ChunkState.BEING_WRITTEN
                        || from == ChunkState.BEING_WRITTEN && to == ChunkState.COMPLETE
                        || from == ChunkState.COMPLETE && to == ChunkState.BEING_READ
                        || from == ChunkState.BEING_READ && to == ChunkState.FREE;
                assertEquals(legal, from.canMoveTo(to), from + " -> " + to);
            }
        }
    }

    @Test
    void allChunksFreeIgnoresTheLayoutButNotAnyChunkState() {
        assertTrue(PageHeader.allChunksFree(0));
        assertTrue(PageHeader.allChunksFree(PageHeader.withLayout(PageLayout.DIV4)));
        for (int i = 0; i < PageHeader.MAX_CHUNKS_PER_PAGE; i++) {
            assertFalse(PageHeader.allChunksFree(
                    PageHeader.withChunkState(PageHeader.withLayout(PageLayout.DIV14), i, ChunkState.BEING_READ)));
        }
    }
}
