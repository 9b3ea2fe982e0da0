package io.weft.config;

/**
 * Options of the TCP transport.
 *
 * @param sendBufferBytes   bytes of pushes queued per peer connection before a pusher waits for the socket.
 * @param socketBufferBytes kernel send and receive buffer size requested per socket.
 * @param noDelay           disable Nagle's algorithm (pushes are latency sensitive).
 * @param threading         whether the selector thread also runs the predicates.
 */
public record TcpOptions(int sendBufferBytes, int socketBufferBytes, boolean noDelay, TransportThreading threading)
{
    public static final int MIN_SEND_BUFFER = 64 * 1024;
    public static final int MAX_SEND_BUFFER = 1 << 30;

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public TcpOptions
    {
        WeftConfigException.check(sendBufferBytes >= MIN_SEND_BUFFER && sendBufferBytes <= MAX_SEND_BUFFER,
            "weft.transport.tcp.send-buffer", sendBufferBytes, "must be between 64 KiB and 1 GiB");
        WeftConfigException.check(socketBufferBytes >= 4096 && socketBufferBytes <= (64 << 20),
            "weft.transport.tcp.socket-buffer", socketBufferBytes, "must be between 4 KiB and 64 MiB");
        WeftConfigException.check(threading != null, "weft.transport.tcp.threading", null,
            "must be one of " + ConfigNames.allowed(TransportThreading.values()));
    }
}
