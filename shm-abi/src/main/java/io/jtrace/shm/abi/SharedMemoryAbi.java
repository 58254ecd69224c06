package io.jtrace.shm.abi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The chunk state machine on top of an {@link SharedMemoryBuffer}: the only code that changes page
 * header bitmaps. Each transition is one compare-and-set on the page's 32-bit bitmap, so producers in
 * any process and the service agree on who owns a chunk without a lock.
 *
 * <h2>Memory ordering</h2>
 * <ul>
 *   <li>A producer's CAS FREE → BEING_WRITTEN (volatile semantics) happens-after the service's CAS
 *       BEING_READ → FREE of the same chunk, so the service's reads of the old content finish before
 *       the producer overwrites it.</li>
 *   <li>A producer's plain writes of packet bytes and header fields happen-before its CAS
 *       BEING_WRITTEN → COMPLETE; the service's CAS COMPLETE → BEING_READ reads that value and so sees
 *       every byte of the chunk.</li>
 *   <li>While a chunk is BEING_WRITTEN, the writer publishes each finished packet with a release store
 *       of the chunk header's writer/packets word ({@link #publishPackets}); a reader that loads it with
 *       acquire ({@link #readWriterAndPackets}) may read the counted packets, which no longer change.</li>
 *   <li>Before BEING_READ → FREE the service adds one to the page's free generation (volatile RMW),
 *       then, ordered after it by a StoreStore fence, clears the chunk header (plain stores); the CAS to
 *       FREE follows ({@link #releaseChunkAsFree}). A writer that takes the chunk next (CAS FREE →
 *       BEING_WRITTEN) reads that CAS, so the increment and the clear happen-before everything it writes
 *       into the chunk's next use: a BEING_WRITTEN chunk never shows the previous use's header (until
 *       its writer's release store of the new one it shows writer id 0, which no reader takes), and
 *       a scrape that sees the clear or anything of the next use also sees the new generation when it
 *       loads it again after a LoadLoad fence — the seqlock pairing its validated copy relies on
 *       ({@link ChunkSnapshot}).</li>
 * </ul>
 *
 * <p>Producer-side misuse (releasing a chunk it does not hold) is a bug in our own code and throws.
 * Service-side methods never throw on a bad state: the SMB is hostile, so they return {@code false}
 * and leave the state alone.
 */
public final class SharedMemoryAbi {
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private final SharedMemoryBuffer smb;
    private final ByteBuffer buf;
    private final int pageSize;
    private final int pageCount;

    public SharedMemoryAbi(SharedMemoryBuffer smb) {
        this.smb = smb;
        this.buf = smb.buffer();
        this.pageSize = smb.pageSize();
        this.pageCount = smb.pageCount();
    }

    public SharedMemoryBuffer smb() {
        return smb;
    }

    public int pageCount() {
        return pageCount;
    }

    public int pageSize() {
        return pageSize;
    }

    /**
     * Volatile load of a page's bitmap: sequentially consistent with the CASes on it, which the
     * writers' free-page marks rely on (FreePageHints); an acquire load would not do there.
     */
    public int pageBitmap(int page) {
        return (int) INT.getVolatile(buf, pageOffset(page));
    }

    /**
     * Acquire load of a page's free generation (see {@link PageHeader}): the caller's later loads of the
     * page are ordered after it. See {@link ChunkSnapshot} for the protocol it serves.
     */
    public int pageGeneration(int page) {
        return (int) INT.getAcquire(buf, pageOffset(page) + PageHeader.GENERATION_OFFSET);
    }

    public int pageOffset(int page) {
        return page * pageSize;
    }

    /** Offset of chunk {@code index} of a page laid out as {@code layout}. */
    public int chunkOffset(int page, PageLayout layout, int index) {
        return pageOffset(page) + PageHeader.SIZE + index * layout.chunkSize(pageSize);
    }

    /**
     * Producer: divides a free, unpartitioned page into chunks. Only a page whose bitmap is 0 may be
     * partitioned; returns whether this call did it.
     */
    public boolean tryPartitionPage(int page, PageLayout layout) {
        if (layout == PageLayout.NOT_PARTITIONED) {
            throw new IllegalArgumentException("cannot partition a page as NOT_PARTITIONED");
        }
        return INT.compareAndSet(buf, pageOffset(page), 0, PageHeader.withLayout(layout));
    }

    /**
     * Producer: takes a FREE chunk of a page with the given layout for writing. Returns the chunk
     * index, or -1 when the page has another layout or no free chunk.
     */
    public int tryAcquireChunkForWriting(int page, PageLayout layout) {
        int offset = pageOffset(page);
        while (true) {
            int bitmap = (int) INT.getVolatile(buf, offset);
            if (PageHeader.layoutCode(bitmap) != layout.code()) {
                return -1;
            }
            int index = firstChunkIn(bitmap, layout, ChunkState.FREE);
            if (index < 0) {
                return -1;
            }
            int next = PageHeader.withChunkState(bitmap, index, ChunkState.BEING_WRITTEN);
            if (INT.compareAndSet(buf, offset, bitmap, next)) {
                return index;
            }
            // Another writer changed this page's bitmap (maybe a different chunk): re-read and retry.
        }
    }

    /**
     * Producer, right after acquiring a chunk: writes its header. Plain stores suffice for the chunk id:
     * no one reads the chunk before the COMPLETE CAS or the release store of the packets word below.
     */
    public void writeChunkHeader(int chunkOffset, int chunkId, int writerId, int packetsWord) {
        buf.putInt(chunkOffset + ChunkHeader.CHUNK_ID_OFFSET, chunkId);
        publishPackets(chunkOffset, ChunkHeader.writerAndPackets(writerId, packetsWord));
    }

    /** Producer: release store of the writer id + packets word, publishing every packet counted in it. */
    public void publishPackets(int chunkOffset, int writerAndPackets) {
        INT.setRelease(buf, chunkOffset + ChunkHeader.WRITER_AND_PACKETS_OFFSET, writerAndPackets);
    }

    /** Acquire load of the writer id + packets word (pairs with {@link #publishPackets}). */
    public int readWriterAndPackets(int chunkOffset) {
        return (int) INT.getAcquire(buf, chunkOffset + ChunkHeader.WRITER_AND_PACKETS_OFFSET);
    }

    public int readChunkId(int chunkOffset) {
        return buf.getInt(chunkOffset + ChunkHeader.CHUNK_ID_OFFSET);
    }

    /** Producer: BEING_WRITTEN → COMPLETE. Throws if the chunk is not being written: our own bug. */
    public void releaseChunkAsComplete(int page, int index) {
        if (!transition(page, index, ChunkState.BEING_WRITTEN, ChunkState.COMPLETE, false)) {
            String state = page >= 0 && page < pageCount && index >= 0 && index < PageHeader.MAX_CHUNKS_PER_PAGE
                    ? String.valueOf(chunkState(page, index)) : "out of range";
            throw new IllegalStateException("chunk " + index + " of page " + page + " is " + state
                    + ", not BEING_WRITTEN");
        }
    }

    /** Service: COMPLETE → BEING_READ. False (state unchanged) when the chunk is not COMPLETE. */
    public boolean tryAcquireChunkForReading(int page, int index) {
        return transition(page, index, ChunkState.COMPLETE, ChunkState.BEING_READ, false);
    }

    /**
     * Service: BEING_READ → FREE. When that frees the page's last busy chunk the page goes back to
     * unpartitioned (bitmap 0), so the next writer may lay it out anew for its packet sizes.
     *
     * <p>First the page's free generation moves on, so a scrape that copied the chunk meanwhile
     * discards its copy ({@link ChunkSnapshot}); then the chunk header is cleared, so the chunk's next
     * use shows writer id 0 until its writer writes its own header, never this use's header over new
     * bytes. False, changing nothing, when the chunk is not BEING_READ.
     */
    public boolean releaseChunkAsFree(int page, int index) {
        if (page < 0 || page >= pageCount) {
            return false;
        }
        int bitmap = pageBitmap(page);
        PageLayout layout = PageHeader.layout(bitmap);
        if (layout == null || index < 0 || index >= layout.chunksPerPage()
                || PageHeader.chunkState(bitmap, index) != ChunkState.BEING_READ) {
            return false;
        }
        // An atomic RMW, so frees of two chunks of a page never lose a count. The StoreStore fence orders
        // the clears below after it, as a seqlock writer orders its data stores after its sequence
        // store: a scrape that sees a clear (or, later, anything of the chunk's next use) and then loads
        // the generation after a LoadLoad fence sees this increment, and discards its copy.
        INT.getAndAdd(buf, pageOffset(page) + PageHeader.GENERATION_OFFSET, 1);
        VarHandle.storeStoreFence();
        // BEING_READ: the chunk is the service's alone, and its page keeps this layout (a page with a busy
        // chunk is never repartitioned), so these plain stores hit this chunk's header and race with no
        // writer. The volatile CAS to FREE below publishes them (and the increment) to the writer that
        // takes the chunk next: its CAS FREE → BEING_WRITTEN reads that CAS.
        int offset = chunkOffset(page, layout, index);
        buf.putInt(offset + ChunkHeader.WRITER_AND_PACKETS_OFFSET, 0);
        buf.putInt(offset + ChunkHeader.CHUNK_ID_OFFSET, 0);
        return transition(page, index, ChunkState.BEING_READ, ChunkState.FREE, true);
    }

    public ChunkState chunkState(int page, int index) {
        return PageHeader.chunkState(pageBitmap(page), index);
    }

    /**
     * Moves one chunk from {@code from} to {@code to} by CAS, retrying only when other chunks of the
     * page changed meanwhile. Returns false, changing nothing, if the page has no such chunk or the chunk
     * is not in {@code from}.
     */
    private boolean transition(int page, int index, ChunkState from, ChunkState to, boolean unpartitionWhenFree) {
        if (page < 0 || page >= pageCount || index < 0 || index >= PageHeader.MAX_CHUNKS_PER_PAGE) {
            return false;
        }
        int offset = pageOffset(page);
        while (true) {
            int bitmap = (int) INT.getVolatile(buf, offset);
            PageLayout layout = PageHeader.layout(bitmap);
            if (layout == null || index >= layout.chunksPerPage()
                    || PageHeader.chunkState(bitmap, index) != from) {
                return false;
            }
            int next = PageHeader.withChunkState(bitmap, index, to);
            if (unpartitionWhenFree && PageHeader.allChunksFree(next)) {
                next = 0;
            }
            if (INT.compareAndSet(buf, offset, bitmap, next)) {
                return true;
            }
        }
    }

    private static int firstChunkIn(int bitmap, PageLayout layout, ChunkState state) {
        for (int i = 0; i < layout.chunksPerPage(); i++) {
            if (PageHeader.chunkState(bitmap, i) == state) {
                return i;
            }
        }
        return -1;
    }
}
