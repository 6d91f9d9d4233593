//! Background rounds claimed in the database (`job_round`): with several nodes, exactly one
//! runs each round. A round that is due is claimed by a conditional update that moves its due
//! time to the end of a lease; the node that finishes it sets when it is next due. A node that
//! dies mid-round leaves the round to whichever node claims it once the lease has run out.

use crate::{DbError, Store, on_writer};

impl Store {
    /// Claims round `name` for `node` when it is due at `now` (a round never seen before is due
    /// at `first_due`); true when this node has it and should run it now. Until `now + lease`,
    /// or until [`Store::finish_round`], no other node gets it.
    pub async fn claim_round(&self, name: &str, node: &str, now: i64, lease: i64, first_due: i64) -> Result<bool, DbError> {
        let claimed = on_writer!(self, p => {
            sqlx::query("insert into job_round (name, due_at) values ($1, $2) on conflict (name) do nothing").bind(name).bind(first_due).execute(p).await?;
            sqlx::query("update job_round set node = $1, claimed_at = $2, due_at = $3 where name = $4 and due_at <= $2")
                .bind(node)
                .bind(now)
                .bind(now + lease)
                .bind(name)
                .execute(p)
                .await?
                .rows_affected()
        });
        Ok(claimed == 1)
    }

    /// Ends the round `node` claimed at `claimed_at`: it is next due at `next_due`. A claim that
    /// has since passed to another node (this one outlived its lease) changes nothing.
    pub async fn finish_round(&self, name: &str, node: &str, claimed_at: i64, next_due: i64) -> Result<(), DbError> {
        on_writer!(self, p => {
            sqlx::query("update job_round set due_at = $1 where name = $2 and node = $3 and claimed_at = $4")
                .bind(next_due)
                .bind(name)
                .bind(node)
                .bind(claimed_at)
                .execute(p)
                .await?;
        });
        Ok(())
    }
}
