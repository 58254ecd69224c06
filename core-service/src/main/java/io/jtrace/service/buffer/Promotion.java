package io.jtrace.service.buffer;

import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.proto.WireFormat;
import io.jtrace.shm.writer.ChunkPromoter;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * One trusted writer's leave to append its complete chunks straight into its session's file, on its own
 * thread, as JFR's threads promote their buffers: the service then does nothing per chunk, and under
 * many busy threads the work is spread over the threads that produce it instead of waiting for the
 * service thread's turn on a CPU. A writer takes one itself at its chunk 0 when the service offers its
 * buffer ({@link PromotionTarget}; it then opens its sequence in the file), or the service grants one
 * once the writer's newest chunk is in the file with nothing of its sequence left in the buffer. Either
 * way the sequence lacks nothing from there on, and each chunk the writer appends is exactly what the
 * service would have appended for it: its first packet with the trusted identity (and, opening the
 * sequence, first_packet_on_sequence), the rest as the writer framed them.
 *
 * <p>Ownership, by {@link #state}:
 * <ul>
 *   <li>{@link #GRANTED}: the writer may take it (CAS to {@link #IN_USE}) to append a chunk; the service
 *       may take it back (CAS to {@link #REVOKED}) or hold it (CAS to {@link #IN_USE}) to take one of the
 *       writer's chunks itself. Whoever wins the CAS owns the fields below until its release store of the
 *       next state, which the next CAS or acquire load sees.</li>
 *   <li>{@link #IN_USE}: its owner works. The writer appends one chunk and stores {@link #GRANTED}; or,
 *       when the chunk's turn has not come (an earlier chunk of the writer is on its way through the
 *       service), stores {@link #GRANTED} and waits a little for the service (see ChunkCommitter); or,
 *       when the chunk cannot go this way (a drop marker, a fragment, a patch due, a file that takes no
 *       more), stores {@link #REVOKED}: that chunk and every later one go through the service. The
 *       service, holding it for the chunk it expects next, settles the counts, takes the chunk, and hands
 *       it back ({@link #handBack}) or revokes it.</li>
 *   <li>{@link #REVOKED}: the service's, for good. Before it handles anything of the sequence (a chunk
 *       of the writer, its retirement, a copy of a chunk it holds, the end of the session) it
 *       {@link #settle settles}: the appended chunks join the sequence and the buffer's counters, and
 *       the promotion is dropped.</li>
 * </ul>
 * The writer never touches the service's sequence state: while the promotion lasts, the sequence has
 * nothing in the buffer, and the chunks appended join it at a settlement.
 *
 * <p>Order in the file: a chunk the service read has its place in the file reserved (in the file's
 * ring) before the writer may append the next, and a chunk the writer appends has its place reserved
 * (in the ring, or past it) before it hands its next chunk to the service: places are taken in order,
 * so the sequence's chunks are in the file in their order.
 */
public final class Promotion {
    static final int GRANTED = 0;
    static final int IN_USE = 1;
    static final int REVOKED = 2;
    private static final VarHandle STATE;
    private static final VarHandle APPENDED_EVER;
    private static final VarHandle APPENDED_BYTES_EVER;
    private static final VarHandle MARKERS_EVER;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(Promotion.class, "state", int.class);
            APPENDED_EVER = lookup.findVarHandle(Promotion.class, "appendedEver", long.class);
            APPENDED_BYTES_EVER = lookup.findVarHandle(Promotion.class, "appendedBytesEver", long.class);
            MARKERS_EVER = lookup.findVarHandle(Promotion.class, "markersEver", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Chunk flags that keep a chunk from being appended as it is. */
    private static final int NEEDS_THE_SERVICE = ChunkHeader.FLAG_FIRST_PACKET_CONTINUES_FROM_PREV
            | ChunkHeader.FLAG_LAST_PACKET_CONTINUES_ON_NEXT | ChunkHeader.FLAG_NEEDS_PATCHING;
    private static final int SLOT = WireFormat.SEQUENCE_ID_SLOT_BYTES;
    /** {@link #append}'s outcomes, as {@link ChunkPromoter}'s: appended; cannot go this way; not its turn yet. */
    private static final int APPENDED = ChunkPromoter.PROMOTED;
    private static final int REFUSED = ChunkPromoter.QUEUE;
    private static final int BEHIND = ChunkPromoter.BEHIND;
    /**
     * {@link #blocked}: one for every writer, as nothing about it changes (revoked from the start, no
     * target, nothing appended, nothing to settle).
     */
    private static final Promotion BLOCKED = new Promotion(0, 0, -1, new PromotionTarget(-1, null, null, 0, 0, 0), false);

    static {
        BLOCKED.state = REVOKED;
    }

    @SuppressWarnings("unused")
    private volatile int state;
    private final int sequenceId;
    private final int targetBuffer;
    private final PromotionTarget target;
    /** Whether the writer took this promotion itself at its chunk 0: it then opens its sequence. */
    private final boolean opensSequence;
    /** The trusted identity appended to a chunk's first packet. */
    private final byte[] trailer = new byte[ChunkPacketReader.TRAILER_MAX];
    private final int trailerLength;
    // ---- the owner's (see the class comment) ----
    /** The chunk id the writer's next chunk must carry to be appended. */
    private int nextChunkId;
    /**
     * Chunks, their payload bytes (what a buffer counts for them) and the drop markers among them,
     * appended ever: the service reads them without owning the promotion, for live statistics and to
     * tell whether the writer appended since a flush began. The writer stores them with release (no
     * fence on x86, unlike a volatile store), the service loads them with acquire; a settlement, owning
     * the promotion, reads them plainly.
     */
    private long appendedEver;
    private long appendedBytesEver;
    private long markersEver;
    /** Of those, what settlements have counted (service thread only). */
    private long settledEver;
    private long settledBytesEver;
    private long settledMarkersEver;
    /** {@link #appendedEver} when the last flush began, or -1 (service thread only). */
    private long appendedAtFlushStart = -1;
    /** The chunk being appended, parsed and framed. */
    private final PromotedChunk chunk = new PromotedChunk();
    /**
     * A chunk led with a drop marker (the writer lost packets before it) and no packet of the sequence
     * went into the file since: the next one carries previous_packet_dropped.
     */
    private boolean lossPending;
    /** Whether a packet of the sequence went into the file (opening it: the first carries first_packet_on_sequence). */
    private boolean packetAppended;
    /** The identity trailer with previous_packet_dropped or first_packet_on_sequence: built when needed. */
    private final byte[] flaggedTrailer = new byte[ChunkPacketReader.TRAILER_MAX];
    /** Length of the trailer {@link #firstPacketTrailer} returned last. */
    private int firstTrailerLength;

    /** Granted by the service once chunk {@code nextChunkId - 1} of the sequence is in the file. */
    Promotion(int sequenceId, int nextChunkId, int targetBuffer, PromotionTarget target) {
        this(sequenceId, nextChunkId, targetBuffer, target, false);
    }

    /**
     * The service's grant, once chunk {@code chunkId} of the writer's sequence, whose packets carry
     * {@code sequenceId}, is in the file with nothing of the sequence left in the buffer (see
     * {@link TraceBuffer#promotable}).
     */
    public static Promotion granted(int sequenceId, int chunkId, PromotionTarget target) {
        return new Promotion(sequenceId, chunkId + 1, target.bufferId(), target);
    }

    private Promotion(int sequenceId, int nextChunkId, int targetBuffer, PromotionTarget target, boolean opensSequence) {
        this.sequenceId = sequenceId;
        this.nextChunkId = nextChunkId;
        this.targetBuffer = targetBuffer;
        this.target = target;
        this.opensSequence = opensSequence;
        this.trailerLength = ChunkPacketReader.identityTrailer(trailer, sequenceId, target.uid(), target.pid());
        if (opensSequence) {
            state = IN_USE;
        }
    }

    /**
     * A promotion no writer can use, revoked from the start: what the service puts in a writer's place
     * once it has copied a chunk the writer holds, so the writer cannot open its sequence in the file
     * afterwards (it would append the whole chunk the copy already put there in part).
     */
    public static Promotion blocked() {
        return BLOCKED;
    }

    /**
     * Taken by a writer itself, on its thread, for its chunk 0, when the service offers its target
     * buffer ({@link PromotionTarget}): the writer then never needs the service, from its first packet.
     * Starts {@link #IN_USE}: the writer appends the chunk, then {@link #finish finishes}.
     */
    public static Promotion opening(int sequenceId, int targetBuffer, PromotionTarget target) {
        return new Promotion(sequenceId, 0, targetBuffer, target, true);
    }

    /**
     * The writer's thread, on releasing a chunk (COMPLETE, not yet handed to the commit thread): appends
     * it to the file and frees it, returning true; or returns false, and the chunk goes through the
     * service. When the chunk cannot go this way (a drop marker, a fragment, a patch due, a file that
     * takes no more), every later chunk of the writer also goes through the service until a new grant;
     * when only its turn has not come (an earlier chunk is still on its way through the service), the
     * writer keeps the promotion for the chunk after the one the service reads last.
     */
    public int tryAppend(int page, int index, int targetBuffer, int payloadEnd, int sequenceId) {
        if (sequenceId != this.sequenceId || targetBuffer != this.targetBuffer) {
            // Another writer's grant (its id reused): not this writer's to use or revoke.
            return ChunkPromoter.QUEUE;
        }
        if (!STATE.compareAndSet(this, GRANTED, IN_USE)) {
            // In use: the service holds it while it takes one of the writer's earlier chunks, and hands
            // it back for the next one. Revoked: through the service from now on.
            return (int) STATE.getAcquire(this) == IN_USE ? ChunkPromoter.BEHIND : ChunkPromoter.QUEUE;
        }
        return appendClaimed(page, index, payloadEnd);
    }

    /**
     * The writer, {@link #IN_USE}: appends its chunk (see {@link #tryAppend}) and gives the promotion
     * back to itself, or to the service when the chunk cannot go this way. Returns a
     * {@link ChunkPromoter} outcome.
     */
    public int appendClaimed(int page, int index, int payloadEnd) {
        int outcome = ChunkPromoter.QUEUE;
        try {
            if (payloadEnd >= 0) {
                outcome = append(page, index, payloadEnd);
            }
        } finally {
            // Whatever happened (a bug here must not leave the promotion in use: the service would wait
            // for it forever), the promotion goes back: to the writer, or to the service.
            finish(outcome);
        }
        return outcome;
    }

    /** Nothing appended: the promotion is the service's from now on (the chunk goes through it). */
    public void giveUp() {
        finish(ChunkPromoter.QUEUE);
    }

    private void finish(int outcome) {
        // Release: publishes nextChunkId and the counts to the service's CAS or acquire load.
        STATE.setRelease(this, outcome == ChunkPromoter.QUEUE ? REVOKED : GRANTED);
    }

    /**
     * Appends the chunk, or says why not. Every bound is checked before the file's space is reserved:
     * from the reservation to its commit nothing can fail, so the file is never held back by a
     * reservation left open.
     */
    private int append(int page, int index, int payloadEnd) {
        SharedMemoryAbi abi = target.abi();
        FileAppender file = target.file();
        PageLayout layout = PageHeader.layout(abi.pageBitmap(page));
        if (layout == null || layout == PageLayout.NOT_PARTITIONED) {
            return REFUSED;
        }
        int offset = abi.chunkOffset(page, layout, index);
        int packetsWord = ChunkHeader.packetsWordOf(abi.readWriterAndPackets(offset));
        int flags = ChunkHeader.flags(packetsWord);
        int count = ChunkHeader.packetCount(packetsWord);
        int payload = offset + ChunkHeader.SIZE;
        int chunkSize = layout.chunkSize(abi.pageSize());
        if (abi.readChunkId(offset) != nextChunkId) {
            return BEHIND;
        }
        ByteBuffer smb = abi.smb().buffer();
        if ((flags & ChunkHeader.FLAG_FILE_FRAMED) == 0 || (flags & NEEDS_THE_SERVICE) != 0
                || payloadEnd > chunkSize - ChunkHeader.SIZE || !chunk.read(smb, payload, payloadEnd)) {
            return REFUSED;
        }
        int packets = count - chunk.markers();
        if (packets < 0 || (packets == 0) == chunk.hasPackets()) {
            // The header's count and the frames disagree: the service walks them and counts what is wrong.
            return REFUSED;
        }
        boolean loss = lossPending || chunk.markers() > 0;
        if (loss && chunk.hasPackets() && !chunk.firstPacketClearsIncrementalState()) {
            // After a loss the service passes on no packet that needs the sequence's incremental state
            // until one clears it (the lost packets may have carried what they refer to): it sorts them.
            return REFUSED;
        }
        if (chunk.hasPackets()) {
            byte[] identity = firstPacketTrailer(loss);
            int length = chunk.frame(identity, firstTrailerLength);
            if (file.bytes() + length > target.fileLimit()) {
                return REFUSED;
            }
            long reservation = file.tryReserve(length);
            if (reservation >= 0) {
                chunk.copyInto(file, reservation);
                file.commit(reservation, length, packets);
            } else if (reservation != FileAppender.FULL || !chunk.appendToAFullRing(file, length, packets, chunkSize)) {
                // Shut (the file failed or closed) or still full: the service takes the chunk and counts
                // what becomes of it. A negative answer is never a place in the ring.
                return REFUSED;
            }
            packetAppended = true;
            loss = false;
        }
        // COMPLETE (this thread's own release) to BEING_READ to FREE: no one else takes a chunk that was
        // never handed to the commit thread, so both succeed; the caller marks the page free.
        abi.tryAcquireChunkForReading(page, index);
        abi.releaseChunkAsFree(page, index);
        lossPending = loss;
        nextChunkId++;
        int bytes = chunkSize - ChunkHeader.SIZE;
        // Only this thread writes them (owning the promotion): plain reads, release stores.
        APPENDED_EVER.setRelease(this, (long) APPENDED_EVER.get(this) + 1);
        APPENDED_BYTES_EVER.setRelease(this, (long) APPENDED_BYTES_EVER.get(this) + bytes);
        if (chunk.markers() > 0) {
            MARKERS_EVER.setRelease(this, (long) MARKERS_EVER.get(this) + chunk.markers());
        }
        return APPENDED;
    }

    /**
     * The trailer that replaces the first packet's slot: the trusted identity, with
     * previous_packet_dropped after a loss and first_packet_on_sequence when it opens the sequence. Its
     * length in {@link #firstTrailerLength}.
     */
    private byte[] firstPacketTrailer(boolean loss) {
        boolean opening = opensSequence && !packetAppended;
        if (!loss && !opening) {
            firstTrailerLength = trailerLength;
            return trailer;
        }
        firstTrailerLength = ChunkPacketReader.flaggedTrailer(flaggedTrailer, trailer, trailerLength, loss, opening);
        return flaggedTrailer;
    }

    /**
     * The service, about to take chunk {@code chunkId} of the writer (which the writer queued because
     * its turn had not come): holds the promotion ({@link #IN_USE}) while it does, waiting (a few
     * microseconds) while the writer appends one. Returns false, holding nothing, if the promotion is
     * revoked or expects another chunk (then the service takes it back).
     */
    public boolean hold(int chunkId) {
        for (int attempt = 0; ; attempt++) {
            int now = (int) STATE.getAcquire(this);
            if (now == REVOKED) {
                return false;
            }
            if (now == GRANTED && STATE.compareAndSet(this, GRANTED, IN_USE)) {
                if (nextChunkId == chunkId) {
                    return true;
                }
                STATE.setRelease(this, GRANTED);
                return false;
            }
            Thread.onSpinWait();
            if (attempt > 1000) {
                Thread.yield();
            }
        }
    }

    /**
     * The service, holding the promotion, has put chunk {@code nextChunkId - 1} in the file with nothing
     * of the sequence left in its buffer: the writer may append from {@code nextChunkId} on. Release:
     * publishes the new chunk id to the writer's CAS.
     */
    public void handBack(int nextChunkId) {
        this.nextChunkId = nextChunkId;
        STATE.setRelease(this, GRANTED);
    }

    /** The service, holding the promotion, could not put the chunk in the file as it is: revoked. */
    public void revokeHeld() {
        STATE.setRelease(this, REVOKED);
    }

    /**
     * The service, as a flush begins (before it asks producers to commit): notes how many chunks the
     * writer has appended, for {@link #appendedSinceFlushBegan}. Service thread only.
     */
    public void flushBegins() {
        appendedAtFlushStart = (long) APPENDED_EVER.getAcquire(this);
    }

    /**
     * The service, at the flush's copy of held chunks: whether the writer appended a chunk since the
     * flush began ({@link #flushBegins}). If so, every packet it wrote before the flush is in the file:
     * chunks are appended in order, so the one it held then was appended (the acquire load sees the
     * release store the writer makes after its append's commit). False for a promotion granted since.
     */
    public boolean appendedSinceFlushBegan() {
        return appendedAtFlushStart >= 0 && (long) APPENDED_EVER.getAcquire(this) != appendedAtFlushStart;
    }

    /** Whether the promotion is revoked: its writer's chunks go through the service. */
    public boolean revoked() {
        return (int) STATE.getAcquire(this) == REVOKED;
    }

    /**
     * The service: takes the promotion back unless the writer is appending a chunk right now. Returns
     * whether it is revoked (by this call or before).
     */
    public boolean revoke() {
        int now = (int) STATE.getAcquire(this);
        return now == REVOKED || now == GRANTED && STATE.compareAndSet(this, GRANTED, REVOKED);
    }

    /**
     * The service, owning the promotion (revoked, or held): the chunks appended since the last settlement
     * join the writer's sequence in {@code buffer} (the next one it reads is the one after them) and the
     * buffer's counts, as if it had read them itself.
     */
    void settle(TraceBuffer buffer, BufferCounters counters, int producerId, int writerId) {
        // The owner's fields, plain: the service owns the promotion here (revoked, or held), and the
        // writer's release store of the state published them.
        long chunks = appendedEver - settledEver;
        if (chunks == 0) {
            return;
        }
        long bytes = appendedBytesEver - settledBytesEver;
        long markers = markersEver - settledMarkersEver;
        SequenceState seq = buffer.sequence(producerId, writerId);
        long first = opensSequence && !seq.anyChunk ? TraceBuffer.ordinalOf(seq, nextChunkId - (int) chunks)
                : seq.nextOrdinal;
        long last = first + chunks - 1;
        seq.arrived(last, nextChunkId - 1);
        seq.nextOrdinal = last + 1;
        if (opensSequence) {
            // As a trusted writer's sequence read from its chunk 0 (see SequenceReadOut).
            seq.awaitingIncrementalState = false;
            seq.firstPacketEmitted = packetAppended;
            seq.sequenceId = sequenceId;
        }
        // A loss the writer reported before its last chunk, with no packet after it yet: the service
        // flags the sequence's next packet.
        seq.lossPending |= lossPending;
        lossPending = false;
        counters.chunksWritten += chunks;
        counters.chunksRead += chunks;
        counters.chunksPromoted += chunks;
        counters.bytesWritten += bytes;
        counters.bytesRead += bytes;
        counters.writerPacketLoss += markers;
        settledEver += chunks;
        settledBytesEver += bytes;
        settledMarkersEver += markers;
    }

    /**
     * The service, for a live view of its buffer's statistics: adds the chunks appended and not yet
     * settled to {@code live}, as a settlement would. A writer appending meanwhile may be counted or not.
     */
    public void addUnsettledTo(BufferCounters live) {
        long chunksNow = (long) APPENDED_EVER.getAcquire(this) - settledEver;
        long bytesNow = (long) APPENDED_BYTES_EVER.getAcquire(this) - settledBytesEver;
        live.chunksWritten += chunksNow;
        live.chunksRead += chunksNow;
        live.chunksPromoted += chunksNow;
        live.bytesWritten += bytesNow;
        live.bytesRead += bytesNow;
        live.writerPacketLoss += (long) MARKERS_EVER.getAcquire(this) - settledMarkersEver;
    }

    public int sequenceId() {
        return sequenceId;
    }

    public int targetBuffer() {
        return targetBuffer;
    }
}
