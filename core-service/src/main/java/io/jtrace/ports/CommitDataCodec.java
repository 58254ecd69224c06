package io.jtrace.ports;

import com.google.protobuf.ByteString;
import io.jtrace.protos.CommitDataRequest;
import io.jtrace.shm.writer.CommitRequest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A producer's {@link CommitRequest} as Perfetto's {@code CommitDataRequest} and back, with each chunk's
 * payload end in a field of jtrace's (the sequence id hint stays in-process). Patches travel
 * grouped by chunk as Perfetto groups them (each chunk's patches, {@code has_more_patches} on the
 * chunk); a patch's 4 bytes are the little-endian int {@link CommitRequest.Patch#value()}.
 */
public final class CommitDataCodec {
    private static final int PATCH_SIZE = 4;

    private CommitDataCodec() {}

    /**
     * Most chunks_to_move entries one message carries (about 16 bytes each with a payload end, so 64 KiB
     * of a 128 KiB frame), and most patched chunks: a
     * full 32 MiB SMB of 14-chunk pages has 114,688 chunks, far more than one 128 KiB IPC frame holds.
     */
    static final int MAX_CHUNKS_PER_MESSAGE = 4096;
    static final int MAX_PATCHED_CHUNKS_PER_MESSAGE = 1024;

    /**
     * The request as it goes on the wire: one message, or several when it is too large for one IPC
     * frame. In order, they carry the chunks, then the patches (which may patch those chunks), then the
     * retired writers (which come after both), so sending them in order keeps the request's meaning.
     */
    public static List<CommitDataRequest> encode(CommitRequest request) {
        List<CommitDataRequest> messages = new ArrayList<>();
        CommitDataRequest.Builder out = CommitDataRequest.newBuilder();
        for (int i = 0; i < request.size(); i++) {
            if (out.getChunksToMoveCount() == MAX_CHUNKS_PER_MESSAGE) {
                messages.add(out.build());
                out = CommitDataRequest.newBuilder();
            }
            CommitDataRequest.ChunksToMove.Builder move = CommitDataRequest.ChunksToMove.newBuilder()
                    .setPage(request.page(i)).setChunk(request.chunk(i)).setTargetBuffer(request.targetBuffer(i));
            if (request.payloadEnd(i) >= 0) {
                move.setJtracePayloadEnd(request.payloadEnd(i));
            }
            out.addChunksToMove(move);
        }
        CommitDataRequest.ChunkToPatch.Builder chunk = null;
        for (CommitRequest.Patch patch : request.patches()) {
            if (chunk == null || chunk.getWriterId() != patch.writerId() || chunk.getChunkId() != patch.chunkId()) {
                if (chunk != null) {
                    out.addChunksToPatch(chunk);
                }
                if (out.getChunksToPatchCount() == MAX_PATCHED_CHUNKS_PER_MESSAGE) {
                    messages.add(out.build());
                    out = CommitDataRequest.newBuilder();
                }
                chunk = CommitDataRequest.ChunkToPatch.newBuilder()
                        .setWriterId(patch.writerId()).setChunkId(patch.chunkId());
            }
            chunk.addPatches(CommitDataRequest.ChunkToPatch.Patch.newBuilder()
                    .setOffset(patch.offset()).setData(littleEndian(patch.value())));
            chunk.setHasMorePatches(patch.hasMorePatches());
        }
        if (chunk != null) {
            out.addChunksToPatch(chunk);
        }
        for (int i = 0; i < request.retiredWriterCount(); i++) {
            out.addJtraceRetiredWriters(request.retiredWriter(i));
        }
        messages.add(out.build());
        return messages;
    }

    /**
     * The request a producer sent, for the service. Throws {@link IllegalArgumentException} naming what
     * is wrong when it cannot be one (chunks sent inline, a patch that is not 4 bytes, a value out of
     * range): the whole request is refused, as a producer that sends such a thing cannot be trusted
     * with any of it.
     */
    public static CommitRequest decode(CommitDataRequest wire) {
        CommitRequest request = new CommitRequest(wire.getChunksToMoveCount());
        for (CommitDataRequest.ChunksToMove move : wire.getChunksToMoveList()) {
            if (move.hasData()) {
                throw new IllegalArgumentException("chunks sent inline (shared memory emulation) are not supported");
            }
            // A payload end past 2^31 arrives negative: no hint, as no chunk is that large. The sequence id is
            // not on the wire: the service does not take it from a producer over IPC.
            request.add(nonNegative("page", move.getPage()), nonNegative("chunk", move.getChunk()),
                    nonNegative("target_buffer", move.getTargetBuffer()),
                    move.hasJtracePayloadEnd() ? Math.max(-1, move.getJtracePayloadEnd()) : -1, 0);
        }
        for (CommitDataRequest.ChunkToPatch chunk : wire.getChunksToPatchList()) {
            int count = chunk.getPatchesCount();
            for (int i = 0; i < count; i++) {
                CommitDataRequest.ChunkToPatch.Patch patch = chunk.getPatches(i);
                if (patch.getData().size() != PATCH_SIZE) {
                    throw new IllegalArgumentException("a patch of " + patch.getData().size() + " bytes (patches are "
                            + PATCH_SIZE + ")");
                }
                boolean more = i < count - 1 || chunk.getHasMorePatches();
                request.addPatch(new CommitRequest.Patch(chunk.getWriterId(), chunk.getChunkId(),
                        nonNegative("patch offset", patch.getOffset()),
                        patch.getData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).getInt(), more));
            }
        }
        for (int writer : wire.getJtraceRetiredWritersList()) {
            request.addRetiredWriter(writer);
        }
        return request;
    }

    private static ByteString littleEndian(int value) {
        return ByteString.copyFrom(ByteBuffer.allocate(PATCH_SIZE).order(ByteOrder.LITTLE_ENDIAN).putInt(0, value));
    }

    /** uint32 fields arrive as Java ints; above 2^31 they are negative, and no page, chunk or offset is that large. */
    private static int nonNegative(String what, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " " + Integer.toUnsignedString(value) + " is out of range");
        }
        return value;
    }
}
