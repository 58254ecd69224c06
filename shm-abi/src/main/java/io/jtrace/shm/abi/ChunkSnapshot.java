package io.jtrace.shm.abi;

import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * Service side: a validated copy of a chunk the service does not own — one a writer still holds
 * (BEING_WRITTEN), or one released whose commit has not arrived (COMPLETE) — for the scrape at the end
 * of a session. Reusable; one per service thread.
 *
 * <h2>Why the copy is validated</h2>
 * Such a chunk is not the service's: it may be freed and taken by another writer while it is copied,
 * and a header and bytes read at different moments could then come from different uses of the chunk —
 * the header (writer id, chunk id, packet count) of one use over the packet bytes of the next, which
 * would pass for that writer's packets. {@link #take} never yields that. It copies the way a seqlock
 * reader does (like {@link java.util.concurrent.locks.StampedLock#validate}), with the page's free
 * generation ({@link PageHeader}) as the stamp:
 * <ol>
 *   <li>acquire load of the page's free generation, {@code g1};</li>
 *   <li>volatile load of the page bitmap: the chunk must be BEING_WRITTEN or COMPLETE;</li>
 *   <li>acquire load of the writer/packets word, then the chunk id: writer id 0 (a header cleared by the
 *       last free and not written again yet) or no packets means there is nothing to take;</li>
 *   <li>plain copy of the payload;</li>
 *   <li>{@link VarHandle#acquireFence()}, then the generation again: equal to {@code g1}, the copy is
 *       {@link Result#TAKEN}; else it is {@link Result#TORN}, and the caller discards and counts it.</li>
 * </ol>
 *
 * <h2>Why that suffices</h2>
 * Every use of a chunk starts after a free, and a free ({@link SharedMemoryAbi#releaseChunkAsFree})
 * first adds one to the page's generation, then — ordered after it by a StoreStore fence — clears the
 * header, then CASes the chunk to FREE; the next writer's CAS to BEING_WRITTEN, its header and its bytes
 * all come after those. Let U be the use whose state step 2 read. Had {@code g1} counted the free that
 * ended U, step 2 (ordered after the acquire of {@code g1}) would have seen at least the BEING_READ that
 * precedes that free, not U's state: so {@code g1} predates U's free. Step 2 read U's state with
 * volatile semantics, so steps 3–4 see nothing older than U (the clear before U happened-before U's
 * CAS). A load of steps 3–4 that saw anything newer than U — the clear after it, or anything of a later
 * use — saw a store the free's increment precedes; the fence orders the second generation load after
 * that load, so it sees the increment and differs from {@code g1} (message passing: StoreStore fence at
 * the free, LoadLoad fence at the scrape). So an equal generation proves that steps 3–4 saw U only: one
 * use's header and chunk id, and, the copy being ordered after the acquire of U's packet count, the
 * final bytes of every packet it counts (U's later bytes may be torn; the count keeps the reader away
 * from them). A COMPLETE state seen in step 2 came after U's last header store, so step 3 saw U's final
 * header. A free of another chunk of the page also moves the generation; that only discards a good copy.
 * A false match takes 2^32 frees of one page during one copy.
 *
 * <p>In the service as built, only the service thread frees chunks, and it is the thread that scrapes:
 * what actually protects its scrape is the header clear, without which a chunk just taken by a new
 * writer shows the previous use's header over the new writer's bytes. The validation keeps the scrape
 * correct under any concurrent free as well (a second service thread, a producer that frees chunks
 * itself); the jcstress tests check it under exactly that.
 */
public final class ChunkSnapshot {
    /** What {@link #take} found. */
    public enum Result {
        /** The chunk is not being written or waiting for its commit, or holds no whole packet yet. */
        NOTHING,
        /** The chunk was freed (perhaps reused) during the copy: discard it. */
        TORN,
        /** The copy holds one use's header and the bytes of every packet it counts. */
        TAKEN
    }

    private final byte[] payload;
    private final ByteBuffer payloadView;
    private SharedMemoryAbi abi;
    private int page;
    private int chunkOffset;
    private int generation;
    private int writerAndPackets;
    private int chunkId;
    private int length;
    private boolean complete;

    /** A snapshot with room for the largest chunk of any SMB. */
    public ChunkSnapshot() {
        this.payload = new byte[PageLayout.DIV1.chunkSize(SharedMemoryBuffer.MAX_PAGE_SIZE) - ChunkHeader.SIZE];
        this.payloadView = ByteBuffer.wrap(payload);
    }

    /** Copies chunk {@code index} of {@code page} if it holds packets, and validates the copy. */
    public Result take(SharedMemoryAbi abi, int page, int index) {
        if (!readHeader(abi, page, index)) {
            return Result.NOTHING;
        }
        copyPayload();
        return validate() ? Result.TAKEN : Result.TORN;
    }

    /** Steps 1–3 of the protocol; false when there is nothing to take. */
    boolean readHeader(SharedMemoryAbi abi, int page, int index) {
        if (page < 0 || page >= abi.pageCount()) {
            return false;
        }
        // Acquire: the loads below are ordered after it, so the state they see is no older than the
        // frees this generation counts.
        int g1 = abi.pageGeneration(page);
        int bitmap = abi.pageBitmap(page);
        PageLayout layout = PageHeader.layout(bitmap);
        if (layout == null || index < 0 || index >= layout.chunksPerPage()) {
            return false;
        }
        ChunkState state = PageHeader.chunkState(bitmap, index);
        if (state != ChunkState.BEING_WRITTEN && state != ChunkState.COMPLETE) {
            return false;
        }
        int offset = abi.chunkOffset(page, layout, index);
        // Acquire (pairs with the writer's release store of its packet count): the chunk id below and the
        // bytes of every counted packet are read after it, so they are this use's.
        int word = abi.readWriterAndPackets(offset);
        if (ChunkHeader.writerId(word) == 0 || ChunkHeader.packetCount(ChunkHeader.packetsWordOf(word)) == 0) {
            return false;
        }
        this.abi = abi;
        this.page = page;
        this.chunkOffset = offset;
        this.generation = g1;
        this.writerAndPackets = word;
        this.chunkId = abi.readChunkId(offset);
        this.length = layout.chunkSize(abi.pageSize()) - ChunkHeader.SIZE;
        this.complete = state == ChunkState.COMPLETE;
        return true;
    }

    /** Step 4: plain loads, ordered after the acquire of the header and before the validation's fence. */
    void copyPayload() {
        abi.smb().buffer().get(chunkOffset + ChunkHeader.SIZE, payload, 0, length);
    }

    /** Step 5: whether no free of the page was visible to any load of the copy. */
    boolean validate() {
        // LoadLoad (pairs with the free's StoreStore fence): every load of the header and the copy is
        // ordered before the generation is read again, so one that saw anything a free wrote after its
        // increment (its clear, or the next use's header and bytes) makes this load see the increment.
        VarHandle.acquireFence();
        return abi.pageGeneration(page) == generation;
    }

    public int writerId() {
        return ChunkHeader.writerId(writerAndPackets);
    }

    public int chunkId() {
        return chunkId;
    }

    /** The packets word (count and flags) the copy is valid for. */
    public int packetsWord() {
        return ChunkHeader.packetsWordOf(writerAndPackets);
    }

    /** Whether the chunk was COMPLETE (all of it written) rather than still being written. */
    public boolean complete() {
        return complete;
    }

    /** The copied payload (the bytes after the chunk header): {@link #length()} bytes from index 0. */
    public ByteBuffer payload() {
        return payloadView;
    }

    public int length() {
        return length;
    }
}
