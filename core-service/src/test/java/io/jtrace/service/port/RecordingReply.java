package io.jtrace.service.port;

import com.google.protobuf.MessageLite;
import io.jtrace.ipc.Reply;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** Keeps what a binding answered to one call: the streamed replies, then the last reply or the failure. */
final class RecordingReply implements Reply {
    final List<MessageLite> streamed = new CopyOnWriteArrayList<>();
    /** Completes with the last reply, or exceptionally with the failure's reason. */
    final CompletableFuture<MessageLite> last = new CompletableFuture<>();
    /** Replies given after the last one: a binding must never do that. */
    volatile int afterLast;

    @Override
    public void stream(MessageLite message) {
        if (last.isDone()) {
            afterLast++;
        }
        streamed.add(message);
    }

    @Override
    public void complete(MessageLite message) {
        if (!last.complete(message)) {
            afterLast++;
        }
    }

    @Override
    public void fail(String reason) {
        if (!last.completeExceptionally(new IllegalStateException(reason))) {
            afterLast++;
        }
    }

    @Override
    public long pendingBytes() {
        return 0;
    }

    @SuppressWarnings("unchecked")
    <T extends MessageLite> T await() throws Exception {
        return (T) last.get(30, TimeUnit.SECONDS);
    }

    /** The failure's reason; fails the test's wait if the call succeeded. */
    String awaitFailure() throws Exception {
        try {
            MessageLite unexpected = last.get(30, TimeUnit.SECONDS);
            throw new AssertionError("the call succeeded with " + unexpected);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause().getMessage();
        }
    }
}
