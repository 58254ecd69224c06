package io.jtrace.shm.abi;

/**
 * Layout of the 8-byte page header: the 32-bit bitmap (bytes 0..3) and the page's free generation
 * (bytes 4..7).
 *
 * <pre>
 *  bit 31   30..28    27..26   ...   3..2      1..0
 *  [rsvd]  [layout]  [chunk13] ... [chunk1]  [chunk0]    each chunk: a {@link ChunkState} code
 * </pre>
 *
 * The free generation is a u32 counter only the service writes: it adds one before every BEING_READ →
 * FREE of a chunk of the page, so a scrape can tell that a chunk it copied was freed (and maybe reused)
 * meanwhile ({@link ChunkSnapshot}). Producers never read or write it.
 *
 * Pure functions only: the atomic accesses live in {@link SharedMemoryAbi}.
 */
public final class PageHeader {
    /** Bytes of header at the start of every page. */
    public static final int SIZE = 8;
    /** Offset of the free generation in the page header. */
    public static final int GENERATION_OFFSET = 4;
    public static final int MAX_CHUNKS_PER_PAGE = 14;
    static final int LAYOUT_SHIFT = 28;
    static final int LAYOUT_MASK = 7 << LAYOUT_SHIFT;
    static final int RESERVED_BIT = 1 << 31;

    private PageHeader() {}

    public static int layoutCode(int bitmap) {
        return (bitmap >>> LAYOUT_SHIFT) & 7;
    }

    public static PageLayout layout(int bitmap) {
        return PageLayout.fromCode(layoutCode(bitmap));
    }

    public static ChunkState chunkState(int bitmap, int chunkIndex) {
        return ChunkState.fromCode(bitmap >>> (2 * chunkIndex));
    }

    public static int withChunkState(int bitmap, int chunkIndex, ChunkState state) {
        int shift = 2 * chunkIndex;
        return (bitmap & ~(3 << shift)) | (state.code() << shift);
    }

    public static int withLayout(PageLayout layout) {
        return layout.code() << LAYOUT_SHIFT;
    }

    /** True when the page has a FREE chunk in its layout, or is unpartitioned (so any layout fits). */
    public static boolean hasFreeChunk(int bitmap) {
        PageLayout layout = layout(bitmap);
        if (layout == PageLayout.NOT_PARTITIONED) {
            return true;
        }
        for (int i = 0; layout != null && i < layout.chunksPerPage(); i++) {
            if (chunkState(bitmap, i) == ChunkState.FREE) {
                return true;
            }
        }
        return false;
    }

    /** True when every chunk of the page's layout is FREE (an unpartitioned page counts as free). */
    public static boolean allChunksFree(int bitmap) {
        return (bitmap & ~LAYOUT_MASK) == 0;
    }
}
