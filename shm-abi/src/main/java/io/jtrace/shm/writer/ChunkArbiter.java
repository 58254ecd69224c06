package io.jtrace.shm.writer;

import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Finds free chunks in the SMB for writers, without locks: every claim is a CAS on a page header
 * (through {@link SharedMemoryAbi}). The scan looks only at pages marked as maybe free
 * ({@link FreePageHints}) and starts at a shared hint so concurrent writers spread over different pages
 * instead of all fighting over page 0.
 */
public final class ChunkArbiter {
    /**
     * What a writer's first chunk holds at least, header included: about 1 KiB (a writer that fills it
     * takes the largest next, see {@link #maxChunkSize}).
     */
    public static final int DEFAULT_CHUNK_BYTES = 1020;
    /** How many sequence ids {@link #proposeSequenceId} hands out: the upper half of what a slot holds. */
    public static final int PROPOSALS = (WireFormat.MAX_SLOT_SEQUENCE_ID + 1) / 2;
    private static final int LOWEST_PROPOSAL = WireFormat.MAX_SLOT_SEQUENCE_ID + 1 - PROPOSALS;
    /** {@link #claim}'s answer when the page has {@code layout} and no free chunk in it. */
    private static final int FULL = -1;
    /** {@link #claim}'s answer when the page is laid out for another size: it keeps its mark. */
    private static final int OTHER_LAYOUT = -2;

    private final SharedMemoryAbi abi;
    /** Layout of the chunks writers take unless they ask for more: see {@link #defaultLayout(int)}. */
    private final PageLayout defaultLayout;
    private final WriterIdAllocator writerIds = new WriterIdAllocator();
    private final ChunkCommitter committer;
    /**
     * Where the next scan starts. Read and written with plain accesses on purpose: a stale value only
     * costs a longer scan, never correctness, since the CAS on the page header decides ownership.
     */
    private int pageHint;
    /**
     * Per layout code: the committer's free epoch read before the last scan that found no chunk, or -1.
     * While the epoch has not moved no chunk can have been freed, so a writer gives up at once instead
     * of scanning every page again: an event costs the same whether or not the SMB is full. Plain
     * accesses: a stale value is an older epoch, which only costs one more scan.
     */
    private final long[] fullAtEpoch = {-1, -1, -1, -1, -1, -1, -1, -1};
    /**
     * How many page-sized chunks writers may hold at once: a quarter of the pages, at least one. A
     * writer keeps its chunk while it idles (only a flush scrapes it), so without a bound a few thousand
     * threads that were each busy once would pin every page, and every other thread would drop.
     */
    private final int pageChunkLimit;
    /**
     * Page-sized chunks writers hold now ({@link #tryHoldPageChunk}, {@link #pageChunkReleased}). Only
     * a count: it publishes nothing (the chunk itself is taken by its page header's CAS), so plain
     * atomic updates suffice.
     */
    private final AtomicInteger pageChunksHeld = new AtomicInteger();
    /** The next {@link #proposeSequenceId} answer; counts down, and only that way. */
    private final AtomicInteger nextProposal = new AtomicInteger(WireFormat.MAX_SLOT_SEQUENCE_ID);

    public ChunkArbiter(SharedMemoryAbi abi, ChunkCommitter committer) {
        this.abi = abi;
        this.defaultLayout = defaultLayout(abi.pageSize());
        this.pageChunkLimit = Math.max(1, abi.pageCount() / 4);
        this.committer = committer;
        committer.onWriterIdsReleased(writerIds::free);
    }

    /**
     * The most chunks per page that still hold {@link #DEFAULT_CHUNK_BYTES}: 4 on a 4 KiB page, 7 on an
     * 8 KiB one, 14 on 16 and 32 KiB ones.
     */
    public static PageLayout defaultLayout(int pageSize) {
        return PageLayout.smallestFitting(DEFAULT_CHUNK_BYTES, pageSize);
    }

    /** Chunks of the default layout the SMB holds: what budgets for idle writers are a share of. */
    public int defaultChunkCount() {
        return abi.pageCount() * defaultLayout.chunksPerPage();
    }

    public SharedMemoryAbi abi() {
        return abi;
    }

    public ChunkCommitter committer() {
        return committer;
    }

    /**
     * Takes one of the places for a page-sized chunk ({@link #maxChunkSize}), if fewer than the limit
     * are held: a writer asks before it takes such a chunk, and gives the place back when it hands the
     * chunk over ({@link #pageChunkReleased}) or found none.
     */
    public boolean tryHoldPageChunk() {
        for (int held = pageChunksHeld.get(); held < pageChunkLimit; held = pageChunksHeld.get()) {
            if (pageChunksHeld.compareAndSet(held, held + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Gives back a place taken by {@link #tryHoldPageChunk}. */
    public void pageChunkReleased() {
        pageChunksHeld.decrementAndGet();
    }

    /** Page-sized chunks held now (for tests and stats). */
    public int pageChunksHeld() {
        return pageChunksHeld.get();
    }

    /** Largest chunk (header included) this SMB can hand out. */
    public int maxChunkSize() {
        return PageLayout.DIV1.chunkSize(abi.pageSize());
    }

    /**
     * Claims a FREE chunk of at least {@code minChunkBytes} (header included) for writing. Returns
     * {@code page << 8 | layoutCode << 4 | chunkIndex}, or -1 when no chunk is free (SMB full) or none
     * can be that large.
     */
    public int acquireChunk(int minChunkBytes) {
        PageLayout layout = defaultLayout.chunkSize(abi.pageSize()) >= minChunkBytes
                ? defaultLayout
                : PageLayout.smallestFitting(minChunkBytes, abi.pageSize());
        if (layout == null) {
            return -1;
        }
        // Read before the scan: a chunk freed during a scan that misses it moves the epoch past this.
        long epoch = committer.freeEpoch();
        if (fullAtEpoch[layout.code()] == epoch) {
            return -1;
        }
        FreePageHints hints = committer.freePages();
        int pages = abi.pageCount();
        int start = pageHint;
        if (start >= pages) {
            start = 0;
        }
        // Only the pages marked as maybe free, word by word from the hint's: a scan that finds nothing
        // reads the words, not every page header.
        // A committer may be sized for more pages than this SMB has (tests share one): its words past
        // the SMB's last page are not looked at.
        int words = Math.min(hints.words(), (pages + 63) >>> 6);
        int firstWord = start >>> 6;
        for (int w = 0; w < words; w++) {
            int word = firstWord + w;
            if (word >= words) {
                word -= words;
            }
            long bits = hints.word(word);
            while (bits != 0) {
                int page = word << 6 | Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (page >= pages) {
                    break;
                }
                int index = tryPage(hints, page, layout);
                if (index >= 0) {
                    pageHint = page;
                    return page << 8 | layout.code() << 4 | index;
                }
            }
        }
        fullAtEpoch[layout.code()] = epoch;
        return -1;
    }

    /**
     * A chunk of {@code page} in {@code layout}, or -1. A page found full has its mark cleared, then its
     * header read again: a free that landed meanwhile marks it back (see {@link FreePageHints}).
     */
    private int tryPage(FreePageHints hints, int page, PageLayout layout) {
        int index = claim(page, layout);
        if (index != FULL) {
            return Math.max(index, -1);
        }
        hints.clear(page);
        if (PageHeader.hasFreeChunk(abi.pageBitmap(page))) {
            // Freed between our look and the clear. Marked again, and the epoch moved: a writer whose
            // scan passed the page while it was clear must not take its "full" for the truth.
            hints.mark(page);
            committer.epochMoved();
            return Math.max(claim(page, layout), -1);
        }
        return -1;
    }

    /** Takes a chunk of {@code page}, laying the page out first if it is unpartitioned. */
    private int claim(int page, PageLayout layout) {
        int code = PageHeader.layoutCode(abi.pageBitmap(page));
        if (code == PageLayout.NOT_PARTITIONED.code()) {
            // Lost races are fine: whoever partitioned it, we then try to take a chunk of it.
            abi.tryPartitionPage(page, layout);
        } else if (code != layout.code()) {
            return OTHER_LAYOUT;
        }
        int index = abi.tryAcquireChunkForWriting(page, layout);
        if (index < 0 && PageHeader.layoutCode(abi.pageBitmap(page)) != layout.code()) {
            // Another writer laid the page out for its size between our look and our partition CAS. Its
            // chunks may be free: "full" would clear the page's mark, and a writer of that size scanning
            // meanwhile would miss them and give up with the SMB not full.
            return OTHER_LAYOUT;
        }
        return index;
    }

    public boolean knownFull() {
        return fullAtEpoch[defaultLayout.code()] == committer.freeEpoch();
    }

    public static int pageOf(int handle) {
        return handle >>> 8;
    }

    public static PageLayout layoutOf(int handle) {
        return PageLayout.fromCode(handle >>> 4 & 0xF);
    }

    public static int indexOf(int handle) {
        return handle & 0xF;
    }

    /**
     * {@link #acquireChunk} for a writer whose policy is to wait: bounded back-off (spin, then yield,
     * then park in growing steps), asking the commit thread each time to send what is queued, for at most
     * {@code limitNanos}. After each park, unless the service reports its frees in this process, every
     * page is marked again, so chunks freed by a service in another process are found within the
     * back-off step, not at the commit period.
     */
    public int acquireChunkStalling(int minChunkBytes, long limitNanos) {
        long deadline = System.nanoTime() + limitNanos;
        long park = 1_000;
        for (int attempt = 0; ; attempt++) {
            committer.wakeUp();
            boolean parked = false;
            if (attempt < 16) {
                Thread.onSpinWait();
            } else if (attempt < 32) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(park);
                park = Math.min(park * 2, 1_000_000);
                parked = true;
            }
            if (parked) {
                // A service in another process frees without telling this side: after a wait, every page
                // is worth a look again.
                committer.markAllUnlessFreesReported();
            }
            int handle = acquireChunk(minChunkBytes);
            if (handle >= 0 || System.nanoTime() > deadline) {
                return handle;
            }
        }
    }

    /**
     * A trusted_packet_sequence_id for a new writer to write into its packets' slots itself, or 0 once
     * {@link #PROPOSALS} have been handed out. Only a proposal: a service that trusts this producer (one
     * in its own process) adopts it for the writer's sequence if no sequence of the service has used it,
     * and then copies the writer's chunks without stamping each packet; otherwise it stamps its own id.
     * Counts down from the largest id a slot holds, away from the ids a service hands out itself (upward
     * from 2), and never hands out an id twice: a writer id is reused, a sequence id must not be.
     */
    public int proposeSequenceId() {
        int id = nextProposal.getAndUpdate(v -> v >= LOWEST_PROPOSAL ? v - 1 : v);
        return id >= LOWEST_PROPOSAL ? id : 0;
    }

    /** A new writer id, or -1 when all are taken. */
    public int allocateWriterId() {
        return writerIds.allocate();
    }

    public void freeWriterId(int id) {
        writerIds.free(id);
    }

    /** A writer closed: its id comes back once the service knows (see {@link ChunkCommitter#retireWriter}). */
    void retireWriter(int id) {
        committer.retireWriter(id);
    }
}
