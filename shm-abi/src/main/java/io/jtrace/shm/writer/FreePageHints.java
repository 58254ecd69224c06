package io.jtrace.shm.writer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One bit per SMB page: set when the page may have a free chunk. The arbiter looks only at pages whose
 * bit is set, so a writer that finds the SMB full reads a few dozen words held in this process, not
 * every page header across the mapping (2,048 headers 16 KiB apart for 32 MiB: a TLB miss each). The bits
 * are hints: the CAS on the page header still decides who gets a chunk.
 *
 * <p>The one rule: <b>a page with a free chunk never has its bit clear for longer than a writer's
 * re-check.</b> It holds by a Dekker-style pairing, every access below being volatile or an atomic
 * read-modify-write (sequentially consistent with the page-header CASes of {@code SharedMemoryAbi}):
 * <ul>
 *   <li>whoever frees a chunk sets the page's bit <em>after</em> the CAS that freed it ({@link #mark});</li>
 *   <li>a writer clears a bit only after it found the page full, and then reads the page header again
 *       ({@link ChunkArbiter}); a free it then sees makes it set the bit back.</li>
 * </ul>
 * In the one total order of these accesses, either the writer's re-read comes after the free (it sees
 * the free chunk) or the freer's set comes after the writer's clear (the bit ends set). A page is never
 * left free and unmarked. Every page starts marked: a new SMB's pages are unpartitioned, so free.
 */
final class FreePageHints {
    private static final VarHandle BITS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] bits;
    private final int pages;

    FreePageHints(int pages) {
        this.pages = pages;
        this.bits = new long[(pages + 63) >>> 6];
        markAll();
    }

    int words() {
        return bits.length;
    }

    /** The word of bits for pages {@code 64 * word} to {@code 64 * word + 63}. Volatile read. */
    long word(int word) {
        return (long) BITS.getVolatile(bits, word);
    }

    /** After a free in {@code page}: the arbiter looks at it again. */
    void mark(int page) {
        long bit = 1L << page;
        int word = page >>> 6;
        // A volatile read first (the argument above needs it to be one, ordered after the free): under a
        // flood most frees land on pages already marked, and the atomic OR would take their cache line
        // from the writers reading it.
        if (((long) BITS.getVolatile(bits, word) & bit) == 0) {
            BITS.getAndBitwiseOr(bits, word, bit);
        }
    }

    /** A free happened that says not where (a service in another process, a test): every page again. */
    void markAll() {
        for (int w = 0; w < bits.length; w++) {
            int inWord = Math.min(64, pages - (w << 6));
            BITS.getAndBitwiseOr(bits, w, inWord == 64 ? -1L : (1L << inWord) - 1);
        }
    }

    /** A writer found {@code page} full; it must read the page header again after this (see above). */
    void clear(int page) {
        BITS.getAndBitwiseAnd(bits, page >>> 6, ~(1L << page));
    }

    boolean isMarked(int page) {
        return ((long) BITS.getVolatile(bits, page >>> 6) & 1L << page) != 0;
    }
}
