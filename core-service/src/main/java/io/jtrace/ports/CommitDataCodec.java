package io.jtrace.ports;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
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
     * Most bytes one message's entries take: a full 32 MiB SMB of 14-chunk pages has 114,688 chunks to
     * move (about 16 bytes each with a payload end), and a chunk's patches take about 10 bytes each, far
     * more than one 128 KiB IPC frame holds. The last quarter of the frame is left for its own fields.
     */
    static final int MAX_MESSAGE_BYTES = 96 * 1024;

    /**
     * The request as it goes on the wire: one message, or several when it is too large for one IPC
     * frame. In order, they carry the chunks, then the patches (which may patch those chunks), then the
     * retired writers (which come after both), so sending them in order keeps the request's meaning. A
     * chunk's patches stay in one message.
     */
    public static List<CommitDataRequest> encode(CommitRequest request) {
        Messages out = new Messages();
        for (int i = 0; i < request.size(); i++) {
            CommitDataRequest.ChunksToMove.Builder move = CommitDataRequest.ChunksToMove.newBuilder()
                    .setPage(request.page(i)).setChunk(request.chunk(i)).setTargetBuffer(request.targetBuffer(i));
            if (request.payloadEnd(i) >= 0) {
                move.setJtracePayloadEnd(request.payloadEnd(i));
            }
            CommitDataRequest.ChunksToMove entry = move.build();
            out.makeRoom(CodedOutputStream.computeMessageSize(CommitDataRequest.CHUNKS_TO_MOVE_FIELD_NUMBER, entry));
            out.current.addChunksToMove(entry);
        }
        CommitDataRequest.ChunkToPatch.Builder chunk = null;
        for (CommitRequest.Patch patch : request.patches()) {
            if (chunk == null || chunk.getWriterId() != patch.writerId() || chunk.getChunkId() != patch.chunkId()) {
                if (chunk != null) {
                    out.addPatched(chunk.build());
                }
                chunk = CommitDataRequest.ChunkToPatch.newBuilder()
                        .setWriterId(patch.writerId()).setChunkId(patch.chunkId());
            }
            chunk.addPatches(CommitDataRequest.ChunkToPatch.Patch.newBuilder()
                    .setOffset(patch.offset()).setData(littleEndian(patch.value())));
            chunk.setHasMorePatches(patch.hasMorePatches());
        }
        if (chunk != null) {
            out.addPatched(chunk.build());
        }
        for (int i = 0; i < request.retiredWriterCount(); i++) {
            out.makeRoom(CodedOutputStream.computeUInt32Size(CommitDataRequest.JTRACE_RETIRED_WRITERS_FIELD_NUMBER,
                    request.retiredWriter(i)));
            out.current.addJtraceRetiredWriters(request.retiredWriter(i));
        }
        out.messages.add(out.current.build());
        return out.messages;
    }

    /** The messages made so far and the one being filled, with the bytes its entries take. */
    private static final class Messages {
        final List<CommitDataRequest> messages = new ArrayList<>();
        CommitDataRequest.Builder current = CommitDataRequest.newBuilder();
        private int bytes;

        /** Starts the next message unless {@code entryBytes} more fit in this one (or it is empty). */
        void makeRoom(int entryBytes) {
            if (bytes > 0 && bytes + entryBytes > MAX_MESSAGE_BYTES) {
                messages.add(current.build());
                current = CommitDataRequest.newBuilder();
                bytes = 0;
            }
            bytes += entryBytes;
        }

        void addPatched(CommitDataRequest.ChunkToPatch patched) {
            makeRoom(CodedOutputStream.computeMessageSize(CommitDataRequest.CHUNKS_TO_PATCH_FIELD_NUMBER, patched));
            current.addChunksToPatch(patched);
        }
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
