/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The retirement protocol of kmod/, as a Promela model for spin.
 *
 * One request slot (with its generation and its reuse), one buffer, one
 * engine, two consumers, the context's timer (deadline and watchdog),
 * the owner, the reaper after close, and a process holding an old handle
 * that injects stale events. Each atomic block is one hold of ctx->lock
 * in the code; ctx->mutex is `mutex`. Documentation/testing.rst says what
 * is abstracted; scripts/model-check.sh runs it, scripts/model-mutations.sh
 * shows each claim bite. A line tagged @NAME is one the mutation script
 * replaces.
 *
 * Claims (C1..C9, named in the assertions and in testing.rst):
 *   C1 exactly one retirement per admitted request, only after its
 *      TERMINAL record was consumed; a record that says RETIRED did
 *   C2 no buffer access after retirement (the engine and the consumers
 *      check the buffer still serves their incarnation)
 *   C3 d is 1 exactly from admission to the terminal event
 *   C4 a stale event never changes the live record
 *   C5 retirement never while a consumer holds a token
 *   C6 every admitted request retires, or stays quarantined on an engine
 *      hung for ever (LTL, weak fairness)
 *   C7 a handoff never lets the token count touch zero
 *   C8 no record lost (and every record is read: LTL)
 *   C9 the context, and so the module, stays while work exists
 *
 * Bounds: MAXSUB incarnations (2; the liveness run uses 1), one cancel,
 * one borrow per consumer, one handoff, one duplicate return, one full
 * ring, one hang, one stale event. NOSTALE leaves the injector out.
 */

#ifndef MAXSUB
#define MAXSUB	2
#endif		/* incarnations the owner admits in one run */
#define NT	3	/* token slots: two consumers and a handoff's second */

/* kmod/req.h RETIRE_REQ_* */
#define R_FREE		0
#define R_WAITING	1
#define R_ACTIVE	2
#define R_TERMINATED	3
#define R_RETIRED	4

/* kmod/buf.h RETIRE_BUF_* */
#define B_FREE		0
#define B_ATTACHED	1
#define B_HELD		2
#define B_QUAR		3

/* kmod/req.h RETIRE_PEND_*: records owed, delivered lowest bit first */
#define P_TIMEOUT	1
#define P_CANCEL_ACK	2
#define P_QUARANTINE	4
#define P_TERMINAL	8
#define P_RETIRED	16

#define O_NONE		0
#define O_COMPLETED	1
#define O_FAILED	2
#define O_CANCELLED	3

/* the sim engine's job: given, moved bytes, hung */
#define J_IDLE		0
#define J_QUEUED	1	/* no byte moved yet: try_stop may stop it */
#define J_MOVED		2
#define J_HUNG		3

/* the request slot: retire_slot + retire_req */
byte gen = 1;		/* generations start at 1 */
bit live;		/* the handle resolves (retire_slot_lookup_locked) */
bit busy;		/* taken: live, or retired and owing its RETIRED record */
byte rstate;
bit d;			/* device access */
bit consumed;
bit terminal_read;
bit quarantined;
bit cancel_req;
bit timed_out;
bit auto_retire;
bit one_record;
byte tokens;
byte pending;
byte outcome;

/* the context */
bit closed;
bit ctxq;		/* ctx->quarantined != 0: admission stopped */
bit mutex;		/* ctx->mutex */
bit modref = 1;		/* the context exists, and pins the module */

/* the buffer */
byte bstate;
byte buf_owner;		/* ghost: the generation the buffer serves, 0 none */

/* the token table */
bit tok_live[NT];
byte tok_gen[NT];
byte hold[2];		/* ghost: generation a consumer holds a token on */

/* the engine's job for the slot */
byte jgen;		/* the handle it was given, 0 none */
byte jphase;
bit jabort;		/* a cancel found it running: it stops at its next step */
bit did_hang;
bit hung_forever;	/* nobody ever resets it */

/* ghosts */
bit term_seen;		/* this incarnation's terminal event happened */
bit ret_this;		/* this incarnation retired */
byte owed;		/* records queued for this incarnation */
byte dlv;		/* records handed to a reader */

#define LOOKUP(h)	(live && (h) == gen)	/* @lookup */
#define MAY_RETIRE	(rstate == R_TERMINATED && consumed && tokens == 0 && !quarantined)	/* @may_retire */
#define STUCK		(hung_forever && quarantined)
/* the live record, as one number: a stale event must leave it equal */
#define SIG		(rstate + 8 * (d + 2 * (consumed + 2 * (terminal_read + 2 * (quarantined + 2 * (cancel_req + 2 * (timed_out + 2 * (tokens + 4 * (pending + 32 * (outcome + 4 * (gen + 8 * (live + 2 * bstate))))))))))))

/* retire_req_queue_locked(): owe the reader a record */
inline queue(b)
{
	owed++;
	pending = pending | b
}

/* retire_req_retire_locked() */
inline retire(record)
{
	assert(!ret_this && consumed);			/* C1 */
	assert(hold[0] != gen && hold[1] != gen);	/* C5 */
	ret_this = 1;
	rstate = R_RETIRED;
	bstate = B_FREE;
	buf_owner = 0;
	live = 0;					/* retire_slot_kill_locked() */
	gen++;
	if
	:: record -> queue(P_RETIRED)
	:: else -> skip
	fi
}

inline try_retire()
{
	if
	:: MAY_RETIRE -> retire(1)
	:: else -> skip
	fi
}

/* retire_req_unquarantine_locked() */
inline unquarantine()
{
	quarantined = 0;
	ctxq = 0;
	if
	:: rstate == R_TERMINATED -> bstate = B_HELD; try_retire()
	:: else -> skip
	fi
}

/* retire_req_terminate_locked(): the terminal event, the only end of d */
inline terminate(res)
{
	d = 0;
	term_seen = 1;
	rstate = R_TERMINATED;
	tokens = 0;
	outcome = res;
	if
	:: quarantined -> unquarantine()	/* @unquarantine */
	:: else -> skip
	fi;
	if
	:: !quarantined -> bstate = B_HELD
	:: else -> skip
	fi;
	queue(P_TERMINAL)
}

/* retire_engine_complete_locked() */
inline engine_complete(h, res)
{
	assert(modref);					/* C9 */
	if
	:: LOOKUP(h) && rstate == R_ACTIVE -> terminate(res)
	:: else -> skip					/* stale_engine */
	fi
}

/* retire_req_cancel() */
inline cancel(h)
{
	if
	:: LOOKUP(h) && (rstate == R_WAITING || rstate == R_ACTIVE) ->
		first = !cancel_req;
		cancel_req = 1;
		if
		:: rstate == R_WAITING -> ret = 0
		:: rstate == R_ACTIVE && jphase == J_QUEUED ->
			ret = 0; jgen = 0; jphase = J_IDLE	/* @try_stop */
		:: rstate == R_ACTIVE -> ret = 1; jabort = 1	/* @cancel_already */
		fi;
		if
		:: first -> queue(P_CANCEL_ACK)
		:: else -> skip
		fi;
		if
		:: ret == 0 -> terminate(O_CANCELLED)
		:: else -> skip
		fi
	:: else -> skip					/* -ENOENT */
	fi
}

/* retire_req_retire(): RETIRE_IOC_RETIRE */
inline retire_ioctl(h)
{
	if
	:: LOOKUP(h) && !consumed && rstate == R_TERMINATED && terminal_read ->
		consumed = 1;
		try_retire()
	:: else -> skip		/* -ENOENT, -EALREADY, -EBUSY */
	fi
}

/* retire_token_borrow(): the caller holds the mutex */
inline borrow(h, t)
{
	t = NT;
	if
	:: LOOKUP(h) && rstate == R_TERMINATED ->
		if
		:: !tok_live[0] -> t = 0
		:: else -> if
			   :: !tok_live[1] -> t = 1
			   :: else -> t = 2
			   fi
		fi;
		tok_live[t] = 1;
		tokens++
	:: else -> skip		/* -ENOENT, -EBUSY */
	fi
}

/* retire_token_return() */
inline tok_return(t, tg)
{
	if
	:: t < NT && tok_live[t] && tok_gen[t] == tg ->
		tok_live[t] = 0;
		tok_gen[t]++;
		tokens--;
		try_retire()	/* @return_retires */
	:: else -> skip		/* a protocol error: counted, nothing else */
	fi
}

/* the lowest record owed, and whether its record says RETIRED */
inline fill(rb, rfl)
{
	rb = pending & (0 - pending);
	rfl = (rb == P_TERMINAL && one_record && tokens == 0 && !quarantined)
}

/* the slot is free again: its last record was read */
inline release()
{
	assert(owed == dlv);				/* C8 */
	owed = 0;
	dlv = 0;
	rstate = R_FREE;
	busy = 0;
	consumed = 0;
	terminal_read = 0;
	cancel_req = 0;
	timed_out = 0;
	auto_retire = 0;
	one_record = 0;
	outcome = O_NONE;
	term_seen = 0;
	ret_this = 0
}

/* retire_record_commit(): the record reached the reader */
inline commit(rb, rfl)
{
	pending = pending & (31 - rb);	/* @commit */
	dlv++;
	if
	:: rb == P_TERMINAL ->
		terminal_read = 1;
		if
		:: closed || auto_retire ->
			consumed = 1;
			if
			:: MAY_RETIRE -> retire(!rfl)
			:: else -> skip
			fi
		:: else -> skip
		fi;
		if
		:: rfl -> assert(rstate == R_RETIRED); release()	/* C1 */
		:: else -> skip
		fi
	:: rb == P_RETIRED -> release()
	:: else -> skip
	fi
}

/* retire_ctx_release(): the owner's file is gone */
inline close_ctx()
{
	closed = 1;
	/* retire_token_revoke_all_locked() */
	i = 0;
	do
	:: i < NT ->
		if
		:: tok_live[i] -> tok_live[i] = 0; tok_gen[i]++; tokens--
		:: else -> skip
		fi;
		i++
	:: else -> break
	od;
	hold[0] = 0;
	hold[1] = 0;
	if
	:: live && rstate == R_WAITING -> cancel_req = 1; terminate(O_CANCELLED)
	:: else -> skip
	fi;
	if
	:: live && rstate == R_TERMINATED && terminal_read ->
		consumed = 1;
		try_retire()
	:: else -> skip
	fi
}

/* global invariants, checked between any two steps */
active proctype monitor()
{
end_monitor:
	if
	:: atomic { !(d == (live && !term_seen)) ->
		assert(d == (live && !term_seen)) }			/* C3 */
	:: atomic { !(buf_owner == (live -> gen : 0)) ->
		assert(buf_owner == (live -> gen : 0)) }		/* C2 */
	:: atomic { !(modref || (!live && pending == 0)) ->
		assert(modref || (!live && pending == 0)) }		/* C9 */
	fi
}

active proctype owner()
{
	byte h, nsub, ncancel, rb, i;
	bit rfl, got_term, did_retire, ring_full, first, ret;

	do
	/* SUBMIT: a free slot, a free buffer, not quarantined */
	:: atomic { !busy && nsub < MAXSUB && !ctxq && bstate == B_FREE ->
		busy = 1;
		live = 1;
		rstate = R_WAITING;
		d = 1;
		bstate = B_ATTACHED;
		buf_owner = gen;
		if
		:: nsub == 0 -> auto_retire = 1
		:: nsub == 0 -> auto_retire = 1; one_record = 1
		:: else -> skip
		fi;
		h = gen;
		nsub++;
		got_term = 0;
		did_retire = 0
	   }
	/* CANCEL by its handle, at any time */
	:: atomic { h && !ncancel -> cancel(h); ncancel = 1; first = 0; ret = 0 }
	/* RETIRE once its TERMINAL record was read */
	:: atomic { got_term && !did_retire -> retire_ioctl(h); did_retire = 1 }
	/* REAP: fill, copy to the user (the lock dropped), commit */
	:: atomic { !mutex && pending -> mutex = 1; fill(rb, rfl) };
	   atomic {
		if
		:: rb == P_TERMINAL && h == gen -> got_term = 1
		:: else -> skip
		fi;
		commit(rb, rfl);
		mutex = 0;
		rb = 0;
		rfl = 0
	   }
	/* ENTER with rings: fill and commit under one lock hold */
	:: atomic { !mutex && pending ->
		fill(rb, rfl);
		if
		:: rb == P_TERMINAL && h == gen -> got_term = 1
		:: else -> skip
		fi;
		commit(rb, rfl);
		rb = 0;
		rfl = 0
	   }
	/* ... once with a full completion ring: nothing moves */
	:: atomic { !mutex && pending && !ring_full -> ring_full = 1	/* @ring_full */
	   }
	/* close(), or the process dies */
	:: atomic { !mutex ->
		close_ctx();
		/* the owner is gone: nothing of it stays in the state */
		h = 0; nsub = 0; ncancel = 0; i = 0;
		got_term = 0; did_retire = 0; ring_full = 0
	   };
	   break
	od
}

proctype consumer(byte c)
{
	byte t, tg, nt, ph;
	int i;
	bit handed;

	do
	/* BORROW on the owner's current request */
	:: atomic { ph == 0 && !closed && !mutex && live && rstate == R_TERMINATED ->	/* @borrow_mutex */
		borrow(gen, t);
		tg = tok_gen[t];
		hold[c] = gen;
		ph = 1
	   }
	/* use the buffer's address */
	:: atomic { ph == 1 ->
		if
		:: !closed -> assert(buf_owner == hold[c])	/* C2 */
		:: else -> skip
		fi;
		ph = 2
	   }
	/* RETURN (with or without an error: only a counter differs) */
	:: atomic { ph == 2 && !closed -> hold[c] = 0; tok_return(t, tg); ph = 3 }
	/* HANDOFF: the new token first, in one call */
	:: atomic { ph == 2 && !closed && !mutex && c == 0 && !handed ->
		nt = 0;
		do
		:: nt < NT && tok_live[nt] -> nt++
		:: else -> break
		od;
		tok_live[nt] = 1;
		tokens = tokens + 1; assert(tokens > 0); tokens = tokens - 1; assert(tokens > 0);	/* @handoff C7 */
		tok_live[t] = 0;
		tok_gen[t]++;
		t = nt;
		tg = tok_gen[nt];
		ph = 1;
		handed = 1
	   }
	/* the same return again: a protocol error that changes nothing */
	:: atomic { ph == 3 && !closed && c == 1 ->
		i = SIG;
		tok_return(t, tg);
		assert(i == SIG);				/* C4 */
		ph = 4;
		i = 0
	   }
	:: atomic { (closed && ph < 4) || (ph == 3 && c == 0) -> ph = 4 }
	:: atomic { ph == 4 -> t = 0; tg = 0; nt = 0; handed = 0 }; break
	od
}

/* a holder of an old (or a guessed future) handle */
active proctype stale()
{
	byte h, t;
	int sig;
	bit n;
	bit first, ret;

#ifdef NOSTALE
	false;	/* the liveness run: C4 showed every stale event a no-op */
#endif
	/* the first incarnation's handle, or the second's before it exists */
	if
	:: h = 1
	:: h = 2
	fi;
end_stale:
	do
	:: atomic { !n && modref && !(live && h == gen) ->	/* stale by definition, not by LOOKUP */
		sig = SIG;
		if
		:: engine_complete(h, O_COMPLETED)
		:: !closed -> cancel(h)
		:: !closed -> retire_ioctl(h)
		:: !closed && !mutex -> borrow(h, t); assert(t == NT)
		fi;
		assert(sig == SIG);				/* C4 */
		n = 1;
		sig = 0;
		t = 0;
		first = 0;
		ret = 0
	   }
	od
}

/* the context's hrtimer: deadlines and the watchdog */
active proctype timer()
{
end_timer:
	do
	:: atomic { live && (rstate == R_WAITING || rstate == R_ACTIVE) && !timed_out ->
		assert(modref);					/* C9 */
		timed_out = 1;
		queue(P_TIMEOUT)	/* @timeout */
	   }
	:: atomic { live && rstate == R_ACTIVE && !quarantined ->
		assert(modref);					/* C9 */
		quarantined = 1;
		bstate = B_QUAR;
		ctxq = 1;
		queue(P_QUARANTINE)
	   }
	od
}

/* the sim engine: start, move, complete, fail, stop on abort, hang, reset */
active proctype engine()
{
end_engine:
	do
	/* activation: the job is given */
	:: atomic { live && rstate == R_WAITING ->
		rstate = R_ACTIVE;
		jgen = gen;
		jphase = J_QUEUED
	   }
	/* move bytes */
	:: atomic { jgen && jphase == J_QUEUED ->
		assert(buf_owner == jgen);			/* C2 */
		assert(modref);					/* C9 */
		jphase = J_MOVED
	   }
	:: atomic { jgen && jphase == J_MOVED -> engine_complete(jgen, O_COMPLETED); jgen = 0; jphase = J_IDLE; jabort = 0 }	/* @report */
	:: atomic { jgen && jphase != J_HUNG -> engine_complete(jgen, O_FAILED); jgen = 0; jphase = J_IDLE; jabort = 0 }
	:: atomic { jgen && jabort && jphase != J_HUNG -> engine_complete(jgen, O_CANCELLED); jgen = 0; jphase = J_IDLE; jabort = 0 }
	:: atomic { jgen && jphase == J_MOVED && !did_hang -> did_hang = 1; jphase = J_HUNG }
	/* RETIRE_IOC_SIM_RESET: the hung job reports failed */
	:: atomic { jgen && jphase == J_HUNG && !hung_forever -> engine_complete(jgen, O_FAILED); jgen = 0; jphase = J_IDLE; jabort = 0 }
	/* ... or nobody ever resets it */
	:: atomic { jgen && jphase == J_HUNG && !hung_forever -> hung_forever = 1 }
	od
}

/* the reaper: consumes for an owner that is gone, then drops the context */
active proctype reaper()
{
	byte rb;
	bit rfl;

	closed;
end_reaper:
	do
	:: atomic { !mutex && pending -> mutex = 1; fill(rb, rfl) };
	   atomic { commit(rb, rfl); mutex = 0; rb = 0; rfl = 0 }
	:: atomic { !mutex && !pending && !live -> modref = 0 }; break	/* @reap_done */
	od
}

init
{
	atomic {
		run consumer(0);
		run consumer(1)
	}
}

/* C6 and C8: every admitted request retires and every record is read,
 * unless the engine hangs for ever and the request stays quarantined */
ltl live { [] (live -> <> (!live || STUCK)) && [] (pending -> <> (pending == 0 || STUCK)) }
