package io.jtrace.shm.abi;

/**
 * How a page is divided into chunks. The layout is stored in bits 28–30 of the page header bitmap;
 * the encoding (1..5) and the chunk counts are Perfetto's, so a page written by either side means the
 * same to the other.
 */
public enum PageLayout {
    /** Free page, not divided yet. The only layout a producer may partition. */
    NOT_PARTITIONED(0, 0),
    DIV1(1, 1),
    DIV2(2, 2),
    DIV4(3, 4),
    DIV7(4, 7),
    DIV14(5, 14);

    private static final PageLayout[] BY_CODE = {
        NOT_PARTITIONED, DIV1, DIV2, DIV4, DIV7, DIV14, null, null
    };

    /** Partitioned layouts from the smallest chunks to the largest. */
    private static final PageLayout[] BY_CHUNK_SIZE = {DIV14, DIV7, DIV4, DIV2, DIV1};

    private final int code;
    private final int chunksPerPage;

    PageLayout(int code, int chunksPerPage) {
        this.code = code;
        this.chunksPerPage = chunksPerPage;
    }

    /** The 3-bit value stored at bits 28–30 of the page header. */
    public int code() {
        return code;
    }

    public int chunksPerPage() {
        return chunksPerPage;
    }

    /**
     * Chunk size for a page of {@code pageSize} bytes: the space after the 8-byte page header shared
     * equally, rounded down to a multiple of 4 so every chunk header stays 4-byte aligned (the atomic
     * accesses on it need that).
     */
    public int chunkSize(int pageSize) {
        if (chunksPerPage == 0) {
            return 0;
        }
        return ((pageSize - PageHeader.SIZE) / chunksPerPage) & ~3;
    }

    /** The layout for a 3-bit code, or {@code null} for the two reserved codes 6 and 7. */
    public static PageLayout fromCode(int code) {
        return BY_CODE[code & 7];
    }

    /** The layout with the most chunks whose chunks still hold {@code chunkBytes} (header included). */
    public static PageLayout smallestFitting(int chunkBytes, int pageSize) {
        for (PageLayout layout : BY_CHUNK_SIZE) {
            if (layout.chunkSize(pageSize) >= chunkBytes) {
                return layout;
            }
        }
        return null;
    }
}
