package io.jtrace.ports;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.jtrace.ipc.ReplyHandler;
import io.jtrace.ipc.ServiceProxy;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/** The two ways the ports' clients wait for the service: a call's last reply as a future, and a bounded wait on one. */
public final class Calls {
    private Calls() {}

    /**
     * Calls {@code method}; the future completes with its last reply (the only one, unless the method
     * streams), or fails with {@code failure} of the reason the call failed.
     */
    public static CompletableFuture<ByteString> call(ServiceProxy port, String method, MessageLite args,
                                                     Function<String, ? extends Exception> failure) {
        CompletableFuture<ByteString> result = new CompletableFuture<>();
        port.invoke(method, args, new ReplyHandler() {
            @Override
            public void onReply(ByteString reply, boolean hasMore) {
                if (!hasMore) {
                    result.complete(reply);
                }
            }

            @Override
            public void onFailure(String reason) {
                result.completeExceptionally(failure.apply(method + ": " + reason));
            }
        });
        return result;
    }

    /** Waits at most {@code timeoutMillis} for {@code future}; any failure is an IOException saying what was awaited. */
    public static <T> T await(CompletableFuture<T> future, long timeoutMillis, String what) throws IOException {
        try {
            return future.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IOException(what + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IOException(what + ": no answer within " + timeoutMillis + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted");
        }
    }
}
