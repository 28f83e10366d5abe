//! A stack's lock as both programs see it: stepdeck's fenced lease (`lease`) and, beside it,
//! Pulumi's lock key, so that `pulumi` refuses a stack stepdeck holds and stepdeck refuses one
//! a `pulumi` holds.

use super::super::diy::{self, lock_file};
use super::super::error::StateError;
use super::super::lock_info::{self, LockInfo, StackLocked};
use super::super::stack_lock::StackLock;
use super::super::stack_ref::StackRef;
use super::PgBackend;
use super::lease::{self, Held, PgRecord, Taken};

impl PgBackend {
    /// Takes the stack's lock: stepdeck's fenced lease, then Pulumi's lock key written beside
    /// it, as Pulumi locks: its own key written, then a look for any other (a `pulumi` that
    /// holds the stack), which refuses the stack in Pulumi's words and releases the lease. The
    /// key of a holder whose lease was taken over is its leftover, removed.
    pub(super) fn take_lock(
        &self,
        stack: &StackRef,
        operation: &str,
    ) -> Result<StackLock, StateError> {
        let lease = lock_info::lease()?;
        let taken = self.run(lease::acquire(
            &self.db,
            &self.t,
            stack.project(),
            stack.stack(),
            operation,
            lease,
        ))?;
        let (info, broke, taken) = match taken {
            Taken::Held(held) => *held,
            Taken::Refused(info) => {
                return Err(Box::new(StackLocked {
                    stack: stack.to_string(),
                    info,
                })
                .into());
            }
        };
        let dir = diy::lock_dir(stack);
        let key = |id: &str| format!("{dir}{id}.json");
        let ours = key(&info.id);
        let before = broke.as_ref().map(|b| key(&b.id));
        let record = PgRecord {
            db: self.db.clone(),
            table: self.t.clone(),
            held: Held {
                project: stack.project().to_string(),
                stack: stack.stack().to_string(),
                id: info.id.clone(),
                generation: i64::try_from(info.generation).unwrap_or(i64::MAX),
            },
            bucket: self.bucket.clone(),
            pulumi_lock: ours.clone(),
        };
        let held = StackLock::hold(stack.clone(), info, broke, lease, taken, Box::new(record))?;
        let b = &self.bucket;
        let others = self.run(async {
            let conn = self.db.get().await?;
            b.put(&*conn, &ours, &lock_file::ours()).await?;
            let mut others = b.get_under(&*conn, &dir).await?;
            others.retain(|(k, _)| *k != ours && Some(k) != before.as_ref());
            if others.is_empty()
                && let Some(before) = &before
            {
                b.delete(&*conn, before).await?;
            }
            Ok(others)
        })?;
        if others.is_empty() {
            return Ok(held);
        }
        let found: Vec<(String, Option<Vec<u8>>)> = others
            .into_iter()
            .map(|(k, bytes)| (self.key_location(&k).display().to_string(), Some(bytes)))
            .collect();
        drop(held);
        Err(lock_file::locked(&found))
    }

    /// Removes the stack's lock: the lease (refused while its holder lives, unless `force`)
    /// and Pulumi's lock keys (the removed holder's, and those a `pulumi` that died left);
    /// the holder removed, if any.
    pub(super) fn break_lock(
        &self,
        stack: &StackRef,
        force: bool,
    ) -> Result<Option<LockInfo>, StateError> {
        let ours = self
            .run(lease::unlock(
                &self.db,
                &self.t,
                stack.project(),
                stack.stack(),
                force,
            ))?
            .map_err(|held| StateError::LockHeldByLiveProcess {
                stack: stack.to_string(),
                pid: held.pid,
                host: held.hostname,
            })?;
        let dir = diy::lock_dir(stack);
        let b = &self.bucket;
        let mut found = self.run(async {
            let conn = self.db.get().await?;
            if let Some(ours) = &ours {
                b.delete(&*conn, &format!("{dir}{}.json", ours.id)).await?;
            }
            b.get_under(&*conn, &dir).await
        })?;
        let mut theirs = None;
        for (key, bytes) in found.drain(..) {
            let id = key
                .strip_prefix(&dir)
                .and_then(|n| n.strip_suffix(".json"))
                .unwrap_or(&key);
            let (info, readable) = lock_file::info(id, Some(&bytes));
            if !force && (!readable || !info.pid_gone_here()) {
                return Err(StateError::LockHeldByLiveProcess {
                    stack: stack.to_string(),
                    pid: info.pid,
                    host: info.hostname,
                });
            }
            self.run(async {
                let conn = self.db.get().await?;
                b.delete(&*conn, &key).await
            })?;
            theirs = Some(info);
        }
        Ok(ours.or(theirs))
    }
}
