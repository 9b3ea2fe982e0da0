package io.weft.tools;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * Standard output and error that reach their file descriptors one whole line per write. The JDK's own streams write
 * every piece of a {@code printf} separately, so when both streams share a pipe (a demo or test reading a member's
 * output) a log line on stderr can land inside a line on stdout, and the reader no longer sees that line.
 */
public final class ConsoleLines
{
    private ConsoleLines()
    {
    }

    /** Replaces {@code System.out} and {@code System.err}; call first in {@code main}. */
    public static void install()
    {
        final WholeLines out = new WholeLines(new FileOutputStream(FileDescriptor.out));
        final WholeLines err = new WholeLines(new FileOutputStream(FileDescriptor.err));
        System.setOut(new PrintStream(out, true, System.out.charset()));
        System.setErr(new PrintStream(err, true, System.err.charset()));
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            out.drain();
            err.drain();
        }, "weft-console-drain"));
    }

    /** Passes on whole lines only: the PrintStream flushes after every piece, and a piece waits for its newline. */
    private static final class WholeLines extends OutputStream
    {
        // a text without newlines this long goes out anyway
        private static final int LIMIT = 1 << 16;

        private final FileOutputStream target;
        private byte[] buffer = new byte[1 << 12];
        private int length;

        WholeLines(final FileOutputStream target)
        {
            this.target = target;
        }

        @Override
        public synchronized void write(final int b)
        {
            ensure(1);
            buffer[length++] = (byte)b;
        }

        @Override
        public synchronized void write(final byte[] bytes, final int offset, final int count)
        {
            ensure(count);
            System.arraycopy(bytes, offset, buffer, length, count);
            length += count;
        }

        @Override
        public synchronized void flush() throws IOException
        {
            int end = length;
            while (end > 0 && buffer[end - 1] != '\n')
            {
                end--;
            }
            if (end == 0 && length < LIMIT)
            {
                return;
            }
            final int written = end == 0 ? length : end;
            target.write(buffer, 0, written);
            System.arraycopy(buffer, written, buffer, 0, length - written);
            length -= written;
        }

        /** At exit: what waits for its newline goes out; a reader that went away (a pipe into head) is no error. */
        synchronized void drain()
        {
            try
            {
                target.write(buffer, 0, length);
            }
            catch (final IOException readerGone)
            {
                // the PrintStream above saw it too (checkError), and nothing can reach the reader now
            }
            length = 0;
        }

        private void ensure(final int more)
        {
            if (length + more > buffer.length)
            {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + more));
            }
        }
    }
}
