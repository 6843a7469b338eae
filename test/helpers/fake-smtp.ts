// A minimal SMTP server on loopback (RFC 5321's plain dialogue, no TLS, no auth): enough for
// nodemailer to deliver to it. Each message received is kept whole, with its envelope.
export type FakeSmtp = { url: string; messages: { from: string; to: string[]; data: string }[]; stop(): void };

export function startFakeSmtp(): FakeSmtp {
  const messages: FakeSmtp["messages"] = [];
  type State = { buffer: string; from: string; to: string[]; inData: boolean; data: string[] };
  const server = Bun.listen<State>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { buffer: "", from: "", to: [], inData: false, data: [] };
        socket.write("220 fake-smtp ready\r\n");
      },
      data(socket, chunk) {
        const s = socket.data;
        s.buffer += new TextDecoder().decode(chunk);
        let i = s.buffer.indexOf("\r\n");
        while (i >= 0) {
          const line = s.buffer.slice(0, i);
          s.buffer = s.buffer.slice(i + 2);
          if (s.inData) {
            if (line === ".") {
              s.inData = false;
              messages.push({ from: s.from, to: s.to, data: s.data.join("\n") });
              s.data = [];
              s.to = [];
              socket.write("250 queued\r\n");
            } else s.data.push(line.startsWith("..") ? line.slice(1) : line);
          } else {
            const verb = line.slice(0, 4).toUpperCase();
            if (verb === "EHLO" || verb === "HELO") socket.write("250 fake-smtp\r\n");
            else if (verb === "MAIL") {
              s.from = line.slice(10).replace(/[<>]/g, "").split(" ")[0]!;
              socket.write("250 ok\r\n");
            } else if (verb === "RCPT") {
              s.to.push(line.slice(8).replace(/[<>]/g, "").split(" ")[0]!);
              socket.write("250 ok\r\n");
            } else if (verb === "DATA") {
              s.inData = true;
              socket.write("354 go on\r\n");
            } else if (verb === "QUIT") {
              socket.write("221 bye\r\n");
              socket.end();
            } else socket.write("250 ok\r\n");
          }
          i = s.buffer.indexOf("\r\n");
        }
      },
    },
  });
  return { url: `smtp://127.0.0.1:${server.port}`, messages, stop: () => server.stop(true) };
}
