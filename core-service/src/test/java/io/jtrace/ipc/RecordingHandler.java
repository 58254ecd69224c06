package io.jtrace.ipc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.jtrace.protos.InitializeConnectionRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Keeps a call's replies; the future ends with them at the last reply, or with the failure's reason. */
final class RecordingHandler implements ReplyHandler {
    final List<InitializeConnectionRequest> replies = new ArrayList<>();
    final List<Boolean> hasMore = new ArrayList<>();
    final CompletableFuture<List<InitializeConnectionRequest>> done = new CompletableFuture<>();
    volatile String failure;
    volatile String callbackAfterEnd;

    @Override
    public void onReply(ByteString reply, boolean more) {
        if (done.isDone()) {
            callbackAfterEnd = "reply after the end";
        }
        try {
            replies.add(InitializeConnectionRequest.parseFrom(reply));
        } catch (InvalidProtocolBufferException e) {
            done.completeExceptionally(e);
            return;
        }
        hasMore.add(more);
        if (!more) {
            done.complete(replies);
        }
    }

    @Override
    public void onFailure(String reason) {
        if (done.isDone()) {
            callbackAfterEnd = "failure after the end: " + reason;
        }
        failure = reason;
        done.completeExceptionally(new IllegalStateException(reason));
    }

    List<InitializeConnectionRequest> await() throws Exception {
        try {
            List<InitializeConnectionRequest> result = done.get(10, TimeUnit.SECONDS);
            assertFalse(callbackAfterEnd != null, callbackAfterEnd);
            return result;
        } catch (ExecutionException e) {
            return fail("call failed: " + e.getCause().getMessage());
        }
    }

    /** The failure's reason; fails the test if the call succeeded or nothing came. */
    String awaitFailure() throws InterruptedException, TimeoutException {
        try {
            List<InitializeConnectionRequest> result = done.get(10, TimeUnit.SECONDS);
            return fail("call succeeded with " + result);
        } catch (ExecutionException e) {
            return e.getCause().getMessage();
        }
    }
}
