package io.jtrace.service;

import io.jtrace.service.buffer.PacketSink;
import io.jtrace.service.buffer.Promotion;
import io.jtrace.service.buffer.PromotionTarget;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.shm.abi.ChunkSnapshot;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.CommitRequest;
import java.io.UncheckedIOException;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Moves chunks from producers' SMBs into trace buffers (DESIGN §4 step 6), treating every SMB as
 * hostile: a chunk is taken only through the state machine, copied before anything in it is parsed,
 * and kept only if it targets a buffer of a running session its producer writes to. Service thread
 * only. Access to a mapping whose file was truncated surfaces as {@link InternalError}, which callers
 * turn into disconnecting that producer.
 */
final class ChunkMover {
    /**
     * The least ring room a complete chunk of an untrusted producer takes when it says where its packets
     * end: about the smallest chunk an SMB lays out (a 4 KiB page in 14), so a ring holds no more of its
     * records than before payload ends.
     */
    static final int LEAST_UNTRUSTED_STORED_BYTES = 256;
    private final Map<Integer, TraceBuffer> buffers;
    private final Map<Integer, TracingSession> bufferOwners;
    /** Commits of chunks that were out of range or not COMPLETE, from any producer (TraceStats.chunks_discarded). */
    long refusedChunks;
    /** Patches for a writer or buffer the producer has no business with (TraceStats.patches_discarded). */
    long refusedPatches;
    /**
     * Scraped copies thrown away because the chunk was freed while it was copied (in TraceStats'
     * chunks_discarded with {@link #refusedChunks}: which buffer the chunk was for is not known).
     */
    long discardedScrapes;
    /** Which patches of the request being applied went in early, before a drain (see {@link #makeRoom}). */
    private final BitSet patchesApplied = new BitSet();
    /** The scrape's view of which pages may hold chunks (see {@link SharedMemoryBuffer#pagesInUse}). */
    private boolean[] pagesInUse = new boolean[0];
    /** The scrape's copy of one chunk at a time (service thread only, like everything here). */
    private final ChunkSnapshot snapshot = new ChunkSnapshot();

    private final SequenceRegistry sequences;
    /** The files of sessions that stream into one (the output is built after the mover, hence a supplier). */
    private final Supplier<StreamedFiles> files;
    /** Asks a session's data sources to clear their incremental state (its rings turned; see RingTurnover). */
    private final Consumer<TracingSession> clearIncrementalState;

    ChunkMover(Map<Integer, TraceBuffer> buffers, Map<Integer, TracingSession> bufferOwners,
               SequenceRegistry sequences, Supplier<StreamedFiles> files,
               Consumer<TracingSession> clearIncrementalState) {
        this.buffers = buffers;
        this.bufferOwners = bufferOwners;
        this.sequences = sequences;
        this.files = files;
        this.clearIncrementalState = clearIncrementalState;
    }

    /**
     * Applies a commit: its chunks first, then its patches (a patch may be for a chunk in the same
     * request), then its retired writers (whose last chunks and patches are in this request or earlier).
     */
    void commit(ProducerState producer, CommitRequest request) {
        patchesApplied.clear();
        for (int i = 0; i < request.size(); i++) {
            move(producer, request, i);
        }
        List<CommitRequest.Patch> patches = request.patches();
        for (int i = 0; i < patches.size(); i++) {
            if (!patchesApplied.get(i)) {
                applyPatch(producer, patches.get(i));
            }
        }
        for (int i = 0; i < request.retiredWriterCount(); i++) {
            retire(producer, request.retiredWriter(i));
        }
    }

    /**
     * Closes a writer's sequence: its chunks stay readable under their sequence id, and the writer id is
     * free for a new writer, whose chunks start a new sequence. An id the producer never registered is
     * ignored (nothing of it is stored).
     */
    private void retire(ProducerState producer, int writerId) {
        reclaim(producer, writerId);
        Integer target = producer.writerTargets.remove(writerId);
        TraceBuffer buffer = target == null ? null : buffers.get(target);
        if (buffer != null) {
            buffer.retireWriter(sequences, producer.id, writerId);
        }
        sequences.retire(producer.id, writerId);
    }

    private void move(ProducerState producer, CommitRequest request, int i) {
        int page = request.page(i);
        int chunk = request.chunk(i);
        int targetBuffer = request.targetBuffer(i);
        SharedMemoryAbi abi = producer.abi;
        TraceBuffer buffer = bufferFor(producer, targetBuffer);
        TracingSession owner = buffer == null ? null : bufferOwners.get(targetBuffer);
        if (buffer != null) {
            // Before the chunk is taken, so whatever the drain does, no chunk stays BEING_READ; a chunk is
            // at most a page.
            makeRoom(producer, request, buffer, owner, abi.pageSize());
        }
        if (page < 0 || page >= abi.pageCount() || !abi.tryAcquireChunkForReading(page, chunk)) {
            violation(targetBuffer);
            return;
        }
        // The successful CAS to BEING_READ fixed the page layout (a page with a busy chunk is never
        // repartitioned) and, being a volatile access, made the producer's writes visible.
        PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
        boolean stored = false;
        // What the chunk took in the ring (none when it went straight into the file): a ring's turnover.
        int ringBytes = 0;
        if (buffer != null) {
            int payloadEnd = -1;
            int stampedSequenceId = 0;
            int writerId = 0;
            int chunkId = 0;
            Promotion held = null;
            if (producer.promotions != null) {
                int offset = abi.chunkOffset(page, layout, chunk);
                writerId = ChunkHeader.writerId(abi.readWriterAndPackets(offset));
                chunkId = abi.readChunkId(offset);
                // The chunks the writer appended join the sequence before this one; a promotion waiting for
                // this chunk is held while it is taken, any other taken back.
                held = producer.promotions.holdFor(writerId, chunkId,
                        (promotion, writer) -> settle(producer, promotion, writer));
            }
            if (request.sequenceId(i) > 0 && sequences.trusted(producer.id)) {
                // Hints come in-process only, from a writer as trusted as the service's own code: its
                // packets are copied by runs up to the payload end, unchecked.
                stampedSequenceId = request.sequenceId(i);
                payloadEnd = request.payloadEnd(i);
                sequences.propose(producer.id, writerId, stampedSequenceId);
            } else {
                // Any other producer's payload end only bounds what of its chunk a ring keeps (a page it
                // handed over with a few packets must not take a page of the ring). Its packets are still
                // walked and checked at read-out, so a wrong end costs that producer its own data only.
                // At least a small chunk's room: one that says its chunks hold nothing still pays ring
                // space for each, or it could have a record kept per chunk (heap) without end.
                int hint = request.payloadEnd(i);
                payloadEnd = hint < 0 ? -1 : Math.max(hint, LEAST_UNTRUSTED_STORED_BYTES);
            }
            boolean inFile = false;
            try {
                stored = readThrough(producer, owner, buffer, abi, page, layout, chunk, payloadEnd, stampedSequenceId);
                inFile = stored;
                if (!stored && fileAtItsLimit(owner, buffer, layout.chunkSize(abi.pageSize()))) {
                    buffer.discardChunk(producer.id, abi, page, layout, chunk);
                } else if (!stored) {
                    // The one copy: straight from the SMB into the buffer's ring, before anything is parsed.
                    ringBytes = buffer.copyChunk(producer.id, abi, page, layout, chunk, true, payloadEnd, stampedSequenceId);
                    stored = ringBytes >= 0;
                    inFile = stored && producer.promotions != null && readSequence(producer, owner, buffer, writerId);
                }
            } finally {
                // Also when the chunk could not be taken (a mapping gone, a bug): a held promotion left in
                // use would have the writer, and the service's next hold, wait for it forever.
                if (producer.promotions != null) {
                    promoteAfter(producer, owner, buffer, writerId, chunkId, targetBuffer, stampedSequenceId, inFile,
                            held);
                }
            }
        }
        abi.releaseChunkAsFree(page, chunk);
        if (stored && owner.ringTurnover != null && owner.ringTurnover.stored(ringBytes)) {
            clearIncrementalState.accept(owner);
        }
    }

    /**
     * A trusted writer's chunk, of a session that streams into a file, read straight into that file when
     * nothing of its sequence waits in the buffer ({@link TraceBuffer#readThrough}). Returns whether it
     * was (false: store it). A file that fails stops its session, as at a drain, with the chunk read.
     */
    private boolean readThrough(ProducerState producer, TracingSession owner, TraceBuffer buffer, SharedMemoryAbi abi,
                                int page, PageLayout layout, int chunk, int payloadEnd, int stampedSequenceId) {
        PacketSink file = files.get().writableFile(owner);
        if (file == null) {
            return false;
        }
        boolean read;
        try {
            read = buffer.readThrough(producer.id, abi, page, layout, chunk, payloadEnd, stampedSequenceId, sequences,
                    file);
        } catch (UncheckedIOException e) {
            files.get().failed(owner, e);
            return true;
        }
        if (read) {
            files.get().wrote(owner);
        }
        return read;
    }

    /**
     * An in-process writer's chunk was stored: what its sequence has ready goes into the file now, so
     * its next chunk can go straight there (and the writer append its own after that). Returns whether
     * it went (the session streams into a file that takes it).
     */
    private boolean readSequence(ProducerState producer, TracingSession owner, TraceBuffer buffer, int writerId) {
        PacketSink file = files.get().writableFile(owner);
        if (file == null) {
            return false;
        }
        try {
            buffer.readSequence(producer.id, writerId, sequences, file);
        } catch (UncheckedIOException e) {
            files.get().failed(owner, e);
            return false;
        }
        files.get().wrote(owner);
        return true;
    }

    /**
     * After chunk {@code chunkId} of an in-process writer: when its sequence is in the file up to that
     * chunk and lacks nothing, the writer may append its next chunks itself (its promotion handed back,
     * or granted); else a promotion held for the chunk is revoked.
     */
    private void promoteAfter(ProducerState producer, TracingSession owner, TraceBuffer buffer, int writerId,
                              int chunkId, int targetBuffer, int stampedSequenceId, boolean inFile, Promotion held) {
        PromotionTarget target = producer.promotions.offered(targetBuffer);
        boolean promotable = inFile && target != null && files.get().writableFile(owner) != null
                && buffer.promotable(producer.id, writerId, chunkId, stampedSequenceId);
        if (held != null) {
            producer.promotions.handBack(writerId, held, promotable, chunkId);
        } else if (promotable) {
            producer.promotions.grant(writerId, Promotion.granted(stampedSequenceId, chunkId, target));
        }
    }

    /** Takes back the promotion of {@code writerId}, if it has one, waiting if it is appending a chunk now. */
    private void reclaim(ProducerState producer, int writerId) {
        if (producer.promotions != null) {
            producer.promotions.reclaim(writerId, true, (promotion, writer) -> settle(producer, promotion, writer));
        }
    }

    /** A producer goes: every promotion of its writers taken back, waiting for those appending a chunk now. */
    void reclaimPromotions(ProducerState producer) {
        if (producer.promotions != null) {
            producer.promotions.reclaimEverything((promotion, writer) -> settle(producer, promotion, writer));
        }
    }

    /**
     * A promotion taken back: the sequence id the writer wrote is its sequence's, and the chunks it
     * appended join its buffer's sequence and counts (nothing, if the buffer is gone).
     */
    private void settle(ProducerState producer, Promotion promotion, int writerId) {
        if (promotion.sequenceId() > 0) {
            sequences.adopt(producer.id, writerId, promotion.sequenceId());
        }
        TraceBuffer buffer = buffers.get(promotion.targetBuffer());
        if (buffer != null) {
            buffer.settle(promotion, producer.id, writerId);
        }
    }

    /**
     * A session that streams into a file never lets its ring overwrite what the file could still get:
     * one commit can carry the whole SMB, more than a small buffer holds, so the check is made per chunk.
     * Under overload the SMB fills instead, and its writers count each event they drop.
     */
    private void makeRoom(ProducerState producer, CommitRequest request, TraceBuffer buffer, TracingSession owner,
                          int chunkBytes) {
        if (owner.file != null && buffer.wouldOverwriteUnread(chunkBytes)) {
            if (request != null) {
                // A chunk waiting for a patch stops its sequence's read-out: its patches in this same
                // request go in first, or the drain could not free that sequence's chunks.
                applyPatchesOfStoredChunks(producer, request);
            }
            files.get().drainIntoFile(owner);
        }
    }

    /**
     * The session's file takes no more (max_file_size_bytes reached, a write failed, or the session is
     * stopping) and the ring has no room that nothing unread occupies: the chunk is discarded rather
     * than overwrite what the session's last read will still put into the file.
     */
    private boolean fileAtItsLimit(TracingSession owner, TraceBuffer buffer, int chunkBytes) {
        return owner.file != null && files.get().writableFile(owner) == null && buffer.wouldOverwriteUnread(chunkBytes);
    }

    /** Applies the request's patches not applied yet whose chunk is stored, in their order. */
    private void applyPatchesOfStoredChunks(ProducerState producer, CommitRequest request) {
        List<CommitRequest.Patch> patches = request.patches();
        for (int i = 0; i < patches.size(); i++) {
            CommitRequest.Patch patch = patches.get(i);
            if (!patchesApplied.get(i) && isStored(producer, patch)) {
                applyPatch(producer, patch);
                patchesApplied.set(i);
            }
        }
    }

    private boolean isStored(ProducerState producer, CommitRequest.Patch patch) {
        TraceBuffer buffer = bufferOf(producer, patch);
        return buffer != null && buffer.holdsChunk(producer.id, patch.writerId(), patch.chunkId());
    }

    /** The buffer a patch's writer writes into, or null when the producer has no business with one. */
    private TraceBuffer bufferOf(ProducerState producer, CommitRequest.Patch patch) {
        Integer target = producer.writerTargets.get(patch.writerId());
        return target == null ? null : bufferFor(producer, target);
    }

    /** Patches go to the buffer the writer writes into; a patch for anything else is refused. */
    private void applyPatch(ProducerState producer, CommitRequest.Patch patch) {
        TraceBuffer buffer = bufferOf(producer, patch);
        if (buffer == null) {
            refusedPatches++;
            return;
        }
        buffer.applyPatch(producer.id, patch.writerId(), patch.chunkId(), patch.offset(), patch.value(),
                patch.hasMorePatches());
    }

    /**
     * At the end of a session: copies chunks still held by its writers, up to their last finished
     * packet (the count each writer publishes with a release store), so data of threads that went quiet
     * is not lost; and copies chunks released but not committed yet (a producer whose flush timed out,
     * or a commit still in flight). Each copy goes through a {@link ChunkSnapshot}, which never pairs
     * one use's header with another use's bytes; a copy it finds torn by a free is discarded and counted
     * in {@link #discardedScrapes}. {@code heldOnly} (a flush of a running session that streams into
     * a file): only chunks writers hold; a COMPLETE one comes with its commit, and a copy read out before
     * that commit would make the commit look like a chunk older than the read-out.
     */
    void scrape(ProducerState producer, TracingSession session, boolean heldOnly) {
        SharedMemoryAbi abi = producer.abi;
        // A held chunk's copy is read before the chunk completes only for a trusted (in-process) producer.
        if (abi == null || !producer.connected || heldOnly && !sequences.trusted(producer.id)) {
            return;
        }
        // A copy of a chunk its writer holds, and any read of its sequence, need the sequence back from
        // the writer: taken back first, so no chunk the copy sees is appended by the writer meanwhile. At
        // the end no writer takes a new one; a flush leaves alone only writers appending a chunk at that
        // moment (their events are flowing into the file), so a writer that went quiet has its copy taken.
        BitSet appending = new BitSet();
        if (producer.promotions != null) {
            Promotions.Settlement settlement = (promotion, writer) -> settle(producer, promotion, writer);
            if (!heldOnly) {
                // No writer opens its sequence in the file any more, and none has a promotion left.
                producer.promotions.withdraw(session.bufferIds);
                for (Map.Entry<Integer, Integer> writer : producer.writerTargets.entrySet()) {
                    if (session.bufferIds.contains(writer.getValue())) {
                        producer.promotions.takeBackAndBlock(writer.getKey(), settlement);
                    }
                }
            }
            appending = producer.promotions.reclaimAll(session.bufferIds, heldOnly, settlement);
        }
        if (pagesInUse.length < abi.pageCount()) {
            pagesInUse = new boolean[abi.pageCount()];
        }
        abi.smb().pagesInUse(pagesInUse);
        for (int page = 0; page < abi.pageCount(); page++) {
            if (!pagesInUse[page]) {
                continue; // never laid out: reading its header through the mapping would allocate it
            }
            PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
            if (layout == null || layout == PageLayout.NOT_PARTITIONED) {
                continue;
            }
            for (int chunk = 0; chunk < layout.chunksPerPage(); chunk++) {
                ChunkSnapshot.Result result = snapshot.take(abi, page, chunk);
                if (result == ChunkSnapshot.Result.TORN) {
                    // A flush's copy of a held chunk loses nothing when torn: the chunk comes with its commit.
                    if (!heldOnly) {
                        discardedScrapes++;
                    }
                    continue;
                }
                if (result != ChunkSnapshot.Result.TAKEN || heldOnly && snapshot.complete()) {
                    continue;
                }
                Integer target = producer.writerTargets.get(snapshot.writerId());
                if (target == null || bufferOwners.get(target) != session || appending.get(snapshot.writerId())
                        || producer.promotions != null && !producer.promotions.block(snapshot.writerId())) {
                    // A writer that appends its own chunks: this one comes with them.
                    continue;
                }
                // Copied, never freed: a COMPLETE chunk's commit may still be on its way, and the chunk
                // stays the producer's to hand over; that later commit finds it where it expects it.
                TraceBuffer buffer = bufferFor(producer, target);
                if (buffer != null) {
                    int stored = TraceBuffer.storedLength(snapshot.payload(), 0, snapshot.length(),
                            snapshot.packetsWord(), snapshot.complete(), -1);
                    makeRoom(producer, null, buffer, session, stored);
                    if (heldOnly && buffer.wouldOverwriteUnread(stored)) {
                        // No room without losing data: the chunk's packets come with its commit instead.
                        continue;
                    }
                    buffer.copyChunk(producer.id, snapshot.writerId(), snapshot.chunkId(), snapshot.packetsWord(),
                            snapshot.payload(), 0, snapshot.length(), snapshot.complete());
                }
            }
        }
    }

    /**
     * The buffer a producer's chunk goes to, or null when it is not one this producer writes to now
     * (stale writer, finished session, or forged id): such a chunk is freed without being kept.
     */
    private TraceBuffer bufferFor(ProducerState producer, int targetBuffer) {
        TraceBuffer buffer = buffers.get(targetBuffer);
        TracingSession owner = bufferOwners.get(targetBuffer);
        if (buffer == null || owner == null || owner.state == TracingSession.State.DISABLED
                || !owner.hasProducer(producer.id)) {
            return null;
        }
        return buffer;
    }

    private void violation(int targetBuffer) {
        refusedChunks++;
        TraceBuffer buffer = buffers.get(targetBuffer);
        if (buffer != null) {
            buffer.recordAbiViolation();
        }
    }
}
