package email

import (
	"context"
	"net/mail"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"
)

// Sender sends the plain-text messages the server writes itself (the SLA
// alerts), through the SMTP server and with the sender of the email
// action's keys (oozie.email.*), so that one mail configuration serves
// both.
type Sender struct{ x emailExecutor }

// NewSender returns a Sender reading the server's keys from opts.
func NewSender(opts launch.Options) *Sender { return &Sender{x: emailExecutor{opts: opts}} }

// Send delivers one text/plain message to the comma-separated addresses
// of to. A bad address or sender is an EM-coded error, as for the action.
func (s *Sender) Send(ctx context.Context, to, subject, body string) error {
	from, err := mail.ParseAddress(s.x.conf(emailFrom))
	if err != nil {
		return action.Errorf(action.ErrorKindError, CodeEmailBadFrom, "bad from address [%s] in %s: %v", s.x.conf(emailFrom), emailFrom, err)
	}
	m := &emailMessage{from: from, subject: subject, body: body, contentType: emailDefaultContentType + "; charset=UTF-8"}
	var rcpts []string
	for _, a := range strings.Split(to, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		addr, err := mail.ParseAddress(a)
		if err != nil {
			return action.Errorf(action.ErrorKindError, CodeEmailBadAddress, "bad address [%s]: %v", a, err)
		}
		m.to = append(m.to, addr)
		rcpts = append(rcpts, addr.Address)
	}
	if len(rcpts) == 0 {
		return action.Errorf(action.ErrorKindError, CodeEmailBadAddress, "no address to send to")
	}
	settings, err := s.x.smtpSettings()
	if err != nil {
		return err
	}
	data, err := m.render(messageID(from.Address), nil, time.Now())
	if err != nil {
		return err
	}
	return deliver(ctx, settings, from.Address, rcpts, data)
}
